#pragma once
// Memory for the buffers that the importer's own threads grow: the Chrome reader's reading thread
// (the text read ahead, each window's text and tape) and the helper threads that sort and bind
// flows (sort_runs.h, chrome_flow_binder.h), mapped from the system instead of taken from malloc.
// glibc serves every thread but the main one from an arena of its own whose free top
// `malloc_trim` never hands back: grown there, those buffers would stay resident beside the
// loaded trace for as long as the process runs. A mapping goes back to the system whole, from
// whichever thread drops it. Its pages are zero and become resident only once written, and
// growth moves the mapping (mremap) instead of copying it, so capacity set aside costs address
// space only.

#include <cstddef>
#include <new>
#include <type_traits>

namespace tscope::trace {

class MappedBytes {
 public:
  MappedBytes() = default;
  ~MappedBytes();
  MappedBytes(MappedBytes&& other) noexcept;
  MappedBytes& operator=(MappedBytes&& other) noexcept;
  MappedBytes(const MappedBytes&) = delete;
  MappedBytes& operator=(const MappedBytes&) = delete;

  // Room for at least `bytes`, keeping the contents; at least doubles a capacity it grows, and
  // never shrinks. Throws std::bad_alloc when the system has no room.
  void reserve(std::size_t bytes);
  std::byte* data() const { return data_; }
  std::size_t capacity() const { return capacity_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// MappedBytes as an array of a trivially copyable type, whose elements start out as zero bytes.
template <typename T>
class MappedArray {
  static_assert(std::is_trivially_copyable_v<T>, "a mapping is moved, never copied element-wise");

 public:
  void reserve(std::size_t count) {
    if (count > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    bytes_.reserve(count * sizeof(T));
  }
  T* data() const { return reinterpret_cast<T*>(bytes_.data()); }
  std::size_t capacity() const { return bytes_.capacity() / sizeof(T); }
  T& operator[](std::size_t index) const { return data()[index]; }

 private:
  MappedBytes bytes_;
};

}  // namespace tscope::trace
