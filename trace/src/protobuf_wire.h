#pragma once
// One Protocol Buffers message written in the wire format by hand (field tags, varints, fixed64
// and length-delimited fields), so an exporter emits protobuf files with no protobuf library at
// run time. A nested message is built in its own ProtoMessage and appended whole, since its
// length prefix must precede it.

#include <cstdint>
#include <span>
#include <string_view>

#include "byte_codec.h"

namespace tscope::trace {

class ProtoMessage {
 public:
  void uint_field(std::uint32_t field, std::uint64_t value) {
    tag(field, kVarint);
    bytes_.varint(value);
  }
  // int32 and int64 fields: a negative value goes as its 64-bit two's complement, as protobuf
  // encodes it.
  void int_field(std::uint32_t field, std::int64_t value) {
    uint_field(field, static_cast<std::uint64_t>(value));
  }
  void fixed64_field(std::uint32_t field, std::uint64_t value) {
    tag(field, kFixed64);
    for (int shift = 0; shift < 64; shift += 8)
      bytes_.u8(static_cast<std::uint8_t>(value >> shift));
  }
  void double_field(std::uint32_t field, double value) {
    tag(field, kFixed64);
    bytes_.f64(value);
  }
  void string_field(std::uint32_t field, std::string_view text) {
    tag(field, kLengthDelimited);
    bytes_.string(text);
  }
  void message_field(std::uint32_t field, const ProtoMessage& message) {
    tag(field, kLengthDelimited);
    bytes_.varint(message.size());
    bytes_.append(message.bytes_);
  }

  bool empty() const { return bytes_.size() == 0; }
  std::size_t size() const { return bytes_.size(); }
  std::string_view bytes() const {
    return {reinterpret_cast<const char*>(bytes_.bytes().data()), bytes_.size()};
  }
  // Keeps the buffer's capacity, so a message reused per event allocates only while it grows.
  void clear() { bytes_.clear(); }

 private:
  enum WireType : std::uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

  void tag(std::uint32_t field, WireType wire) {
    bytes_.varint((static_cast<std::uint64_t>(field) << 3) | wire);
  }

  codec::ByteWriter bytes_;
};

}  // namespace tscope::trace
