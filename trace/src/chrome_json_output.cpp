#include "chrome_json_output.h"

#include <zlib.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tscope/trace/errors.h"

namespace tscope::trace {
namespace {

constexpr std::size_t kBufferBytes = 1 << 16;

bool ends_with_gz(const std::filesystem::path& path) { return path.extension() == ".gz"; }

// Length of the well-formed UTF-8 sequence at the start of `text`, or 0 when it is malformed
// (overlong forms, surrogates and code points past U+10FFFF included).
std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t index) { return static_cast<unsigned char>(text[index]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t index = 2; index < length; ++index) {
    if (byte(index) < 0x80 || byte(index) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

ChromeJsonOutput::ChromeJsonOutput(const std::filesystem::path& path) : path_(path) {
  buffer_.reserve(kBufferBytes + 256);
  if (ends_with_gz(path)) {
    gzip_ = gzopen(path.c_str(), "wb6");
    if (gzip_ == nullptr) throw IoError(path, std::string("cannot create: ") + std::strerror(errno));
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) throw IoError(path, std::string("cannot create: ") + std::strerror(errno));
  }
}

ChromeJsonOutput::~ChromeJsonOutput() {
  if (file_ != nullptr) std::fclose(file_);
  if (gzip_ != nullptr) gzclose(static_cast<gzFile>(gzip_));
}

void ChromeJsonOutput::flush() {
  if (buffer_.empty()) return;
  if (gzip_ != nullptr) {
    const int written = gzwrite(static_cast<gzFile>(gzip_), buffer_.data(),
                                static_cast<unsigned>(buffer_.size()));
    if (written != static_cast<int>(buffer_.size())) {
      int code = 0;
      const char* message = gzerror(static_cast<gzFile>(gzip_), &code);
      throw IoError(path_, std::string("gzip write failed: ") + message);
    }
  } else if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    throw IoError(path_, std::string("write failed: ") + std::strerror(errno));
  }
  buffer_.clear();
}

void ChromeJsonOutput::raw(std::string_view text) {
  buffer_.append(text);
  if (buffer_.size() >= kBufferBytes) flush();
}

void ChromeJsonOutput::raw(char c) {
  buffer_.push_back(c);
  if (buffer_.size() >= kBufferBytes) flush();
}

void ChromeJsonOutput::string(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  buffer_.push_back('"');
  std::size_t index = 0;
  while (index < text.size()) {
    const auto c = static_cast<unsigned char>(text[index]);
    if (c == '"' || c == '\\') {
      buffer_.push_back('\\');
      buffer_.push_back(static_cast<char>(c));
      ++index;
    } else if (c < 0x20) {
      const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      buffer_.append(escaped, sizeof escaped);
      ++index;
    } else if (c < 0x80) {
      buffer_.push_back(static_cast<char>(c));
      ++index;
    } else if (const std::size_t length = utf8_sequence_length(text.substr(index)); length != 0) {
      buffer_.append(text.substr(index, length));
      index += length;
    } else {
      buffer_.append("\\ufffd");
      ++index;
    }
    if (buffer_.size() >= kBufferBytes) flush();
  }
  buffer_.push_back('"');
}

void ChromeJsonOutput::integer(std::int64_t value) {
  std::array<char, 24> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value);
  raw(std::string_view(text.data(), static_cast<std::size_t>(result.ptr - text.data())));
}

void ChromeJsonOutput::unsigned_integer(std::uint64_t value) {
  std::array<char, 24> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value);
  raw(std::string_view(text.data(), static_cast<std::size_t>(result.ptr - text.data())));
}

void ChromeJsonOutput::real(double value) {
  if (!std::isfinite(value)) {
    raw("null");
    return;
  }
  std::array<char, 32> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value);
  std::string_view written(text.data(), static_cast<std::size_t>(result.ptr - text.data()));
  raw(written);
  // A whole double printed as "3" would read back as an integer; keep it a JSON real.
  if (written.find_first_of(".eEn") == std::string_view::npos) raw(".0");
}

void ChromeJsonOutput::micros(std::int64_t nanos) {
  // Integer arithmetic keeps every nanosecond: a double would round large timestamps.
  if (nanos < 0) raw('-');
  const std::uint64_t magnitude =
      nanos < 0 ? 0 - static_cast<std::uint64_t>(nanos) : static_cast<std::uint64_t>(nanos);
  unsigned_integer(magnitude / 1000);
  const std::uint64_t fraction = magnitude % 1000;
  if (fraction == 0) return;
  char digits[4] = {'.', static_cast<char>('0' + fraction / 100),
                    static_cast<char>('0' + fraction / 10 % 10), static_cast<char>('0' + fraction % 10)};
  std::size_t length = 4;
  while (digits[length - 1] == '0') --length;
  raw(std::string_view(digits, length));
}

void ChromeJsonOutput::close() {
  flush();
  if (gzip_ != nullptr) {
    const int status = gzclose(static_cast<gzFile>(gzip_));
    gzip_ = nullptr;
    if (status != Z_OK) throw IoError(path_, "gzip close failed with zlib status " + std::to_string(status));
  }
  if (file_ != nullptr) {
    const int status = std::fclose(file_);
    file_ = nullptr;
    if (status != 0) throw IoError(path_, std::string("close failed: ") + std::strerror(errno));
  }
}

}  // namespace tscope::trace
