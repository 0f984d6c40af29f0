#pragma once
// How each event is laid out inside a thread's ring. Every encoder is written once as a template
// over its output, run first with a ByteCounter to size the record, then with a ByteWriter into
// the reserved space, so the size and the bytes can never disagree.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "event_ring.h"
#include "tscope/profiler/clock.h"
#include "tscope/profiler/record.h"

namespace tscope::profiler::wire {

// Copied text longer than this is cut: a record must stay small next to a ring.
inline constexpr std::size_t kMaxCopiedText = 1024;

class ByteCounter {
 public:
  template <typename T>
  void put(const T&) {
    size_ += sizeof(T);
  }
  void bytes(const void*, std::size_t size) { size_ += size; }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_ = 0;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::byte* destination) : cursor_(destination) {}
  template <typename T>
  void put(const T& value) {
    std::memcpy(cursor_, &value, sizeof(T));
    cursor_ += sizeof(T);
  }
  void bytes(const void* source, std::size_t size) {
    // An empty span may carry a null pointer, which memcpy must not be given even for 0 bytes.
    if (size != 0) std::memcpy(cursor_, source, size);
    cursor_ += size;
  }

 private:
  std::byte* cursor_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::byte* source) : cursor_(source) {}
  template <typename T>
  T get() {
    T value;
    std::memcpy(&value, cursor_, sizeof(T));
    cursor_ += sizeof(T);
    return value;
  }
  std::string_view text_bytes(std::size_t size) {
    const std::string_view view(reinterpret_cast<const char*>(cursor_), size);
    cursor_ += size;
    return view;
  }

 private:
  const std::byte* cursor_;
};

template <typename Out>
[[gnu::always_inline]] inline void put_text(Out& out, std::string_view text, NameStorage storage) {
  out.template put<NameStorage>(storage);
  if (storage == NameStorage::kStatic) {
    out.template put<std::uint32_t>(static_cast<std::uint32_t>(text.size()));
    out.template put<const char*>(text.data());
  } else {
    const std::size_t length = std::min(text.size(), kMaxCopiedText);
    out.template put<std::uint32_t>(static_cast<std::uint32_t>(length));
    out.bytes(text.data(), length);
  }
}

struct Text {
  std::string_view text;
  bool is_static = false;
};

inline Text get_text(ByteReader& in) {
  const auto storage = in.get<NameStorage>();
  const auto length = in.get<std::uint32_t>();
  if (storage == NameStorage::kStatic) return {{in.get<const char*>(), length}, true};
  return {in.text_bytes(length), false};
}

template <typename Out>
void put_args(Out& out, std::span<const Arg> args) {
  out.template put<std::uint8_t>(
      static_cast<std::uint8_t>(std::min<std::size_t>(args.size(), 255)));
  for (const Arg& arg : args.first(std::min<std::size_t>(args.size(), 255))) {
    put_text(out, arg.key, NameStorage::kStatic);
    out.template put<Arg::Type>(arg.type);
    switch (arg.type) {
      case Arg::Type::kInt:
        out.template put<std::int64_t>(arg.int_value);
        break;
      case Arg::Type::kDouble:
        out.template put<double>(arg.double_value);
        break;
      case Arg::Type::kText:
        put_text(out, arg.text_value, NameStorage::kStatic);
        break;
    }
  }
}

// kBegin and kInstant (category in the header's aux).
template <typename Out>
void encode_named(Out& out, Ticks ticks, std::string_view name, NameStorage storage,
                  std::span<const Arg> args) {
  out.template put<Ticks>(ticks);
  put_text(out, name, storage);
  put_args(out, args);
}

// The same record for a name without arguments, written as fixed stores: it stays free of
// put_args' loop, which keeps the compiler from inlining the encoder into the record path.
template <typename Out>
[[gnu::always_inline]] inline void encode_plain_named(Out& out, Ticks ticks, std::string_view name,
                                                      NameStorage storage) {
  out.template put<Ticks>(ticks);
  put_text(out, name, storage);
  out.template put<std::uint8_t>(0);  // no arguments
}

// kAsyncBegin: a range that may end on another thread, tied by `id`.
template <typename Out>
void encode_async_begin(Out& out, Ticks ticks, std::uint64_t id, std::string_view name,
                        NameStorage storage, std::span<const Arg> args) {
  out.template put<std::uint64_t>(id);
  encode_named(out, ticks, name, storage, args);
}

template <typename Out>
void encode_memory(Out& out, Ticks ticks, const MemoryEvent& event) {
  out.template put<Ticks>(ticks);
  out.template put<std::uint64_t>(event.address);
  out.template put<std::uint64_t>(event.bytes);
  out.template put<std::int32_t>(event.device);
  put_text(out, event.owner_op, NameStorage::kStatic);
  out.template put<std::uint64_t>(event.total_allocated);
  out.template put<std::uint64_t>(event.total_reserved);
}

template <typename Out>
void encode_op(Out& out, Ticks start, Ticks end, std::string_view name, std::uint64_t op_id,
               const OpDetail& detail) {
  out.template put<Ticks>(start);
  out.template put<Ticks>(end);
  put_text(out, name, NameStorage::kStatic);
  out.template put<std::uint64_t>(op_id);
  out.template put<std::uint64_t>(detail.flops);
  out.template put<std::uint64_t>(detail.bytes_read);
  out.template put<std::uint64_t>(detail.bytes_written);
  out.template put<std::uint32_t>(static_cast<std::uint32_t>(detail.inputs.size()));
  for (const OpTensor& tensor : detail.inputs) {
    out.template put<std::uint64_t>(tensor.id);
    out.template put<std::uint32_t>(static_cast<std::uint32_t>(tensor.shape.size()));
    out.bytes(tensor.shape.data(), tensor.shape.size_bytes());
  }
  out.template put<std::uint32_t>(static_cast<std::uint32_t>(detail.outputs.size()));
  for (const OpTensor& tensor : detail.outputs)
    out.template put<std::uint64_t>(tensor.id);
}

}  // namespace tscope::profiler::wire
