#pragma once
// Little-endian, LEB128 varint and zigzag encoding of the .tsc payloads. The reader side treats
// its bytes as untrusted: every read is bounds-checked and reports failure by throwing
// PayloadError with the payload offset, which the .tsc reader turns into a FormatError.

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tscope::trace::codec {

inline std::uint64_t zigzag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
}

inline std::int64_t unzigzag(std::uint64_t value) {
  return static_cast<std::int64_t>(value >> 1) ^ -static_cast<std::int64_t>(value & 1);
}

// Deltas wrap modulo 2^64 so any pair of int64 values encodes without overflow.
inline std::int64_t wrapping_delta(std::int64_t value, std::int64_t previous) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(value) -
                                   static_cast<std::uint64_t>(previous));
}

inline std::int64_t wrapping_add(std::int64_t previous, std::int64_t delta) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(previous) +
                                   static_cast<std::uint64_t>(delta));
}

class ByteWriter {
 public:
  void u8(std::uint8_t value) { bytes_.push_back(value); }
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      bytes_.push_back(static_cast<std::uint8_t>(value | 0x80));
      value >>= 7;
    }
    bytes_.push_back(static_cast<std::uint8_t>(value));
  }
  void svarint(std::int64_t value) { varint(zigzag(value)); }
  void f64(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    for (int shift = 0; shift < 64; shift += 8)
      u8(static_cast<std::uint8_t>(bits >> shift));
  }
  void string(std::string_view text) {
    varint(text.size());
    bytes_.insert(bytes_.end(), text.begin(), text.end());
  }
  void append(const ByteWriter& other) {
    bytes_.insert(bytes_.end(), other.bytes_.begin(), other.bytes_.end());
  }

  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }
  void clear() { bytes_.clear(); }

 private:
  std::vector<std::uint8_t> bytes_;
};

class PayloadError : public std::runtime_error {
 public:
  PayloadError(std::size_t offset, const std::string& what)
      : std::runtime_error(what), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  std::uint8_t u8() {
    require(1, "byte");
    return bytes_[position_++];
  }
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      require(1, "varint");
      const std::uint8_t byte = bytes_[position_++];
      // The tenth byte may only carry the top bit of a 64-bit value.
      if (shift == 63 && byte > 1) fail("varint overflows 64 bits");
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail("varint longer than 10 bytes");
  }
  std::int64_t svarint() { return unzigzag(varint()); }
  std::uint32_t varint32(const char* what) {
    const std::uint64_t value = varint();
    if (value > 0xffffffffu) fail(std::string(what) + " exceeds 32 bits");
    return static_cast<std::uint32_t>(value);
  }
  std::int32_t svarint32(const char* what) {
    const std::int64_t value = svarint();
    if (value < INT32_MIN || value > INT32_MAX) fail(std::string(what) + " exceeds 32 bits");
    return static_cast<std::int32_t>(value);
  }
  double f64() {
    require(8, "double");
    std::uint64_t bits = 0;
    for (int shift = 0; shift < 64; shift += 8) {
      bits |= static_cast<std::uint64_t>(bytes_[position_++]) << shift;
    }
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  std::string_view string() {
    const std::uint64_t length = varint();
    if (length > remaining())
      fail("string of " + std::to_string(length) + " bytes runs past the end");
    const auto* begin = reinterpret_cast<const char*>(bytes_.data() + position_);
    position_ += length;
    return {begin, static_cast<std::size_t>(length)};
  }
  // A count of items that each take at least `min_bytes_each` bytes: rejecting counts the
  // remaining bytes cannot hold bounds every allocation by the input size.
  std::size_t count(const char* what, std::size_t min_bytes_each = 1) {
    const std::uint64_t value = varint();
    if (value > remaining() / min_bytes_each) {
      fail(std::string(what) + " count " + std::to_string(value) + " exceeds the payload");
    }
    return static_cast<std::size_t>(value);
  }

  std::size_t position() const { return position_; }
  std::size_t remaining() const { return bytes_.size() - position_; }
  [[noreturn]] void fail(const std::string& what) const { throw PayloadError(position_, what); }

 private:
  void require(std::size_t bytes, const char* what) {
    if (remaining() < bytes) fail(std::string(what) + " runs past the end of the payload");
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t position_ = 0;
};

}  // namespace tscope::trace::codec
