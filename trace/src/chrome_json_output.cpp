#include "chrome_json_output.h"

#include <zlib.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tscope/trace/errors.h"
#include "tscope/trace/json_text.h"

namespace tscope::trace {
namespace {

constexpr std::size_t kBufferBytes = 1 << 16;

bool ends_with_gz(const std::filesystem::path& path) {
  return path.extension() == ".gz";
}

}  // namespace

ChromeJsonOutput::ChromeJsonOutput(const std::filesystem::path& path) : path_(path) {
  buffer_.reserve(kBufferBytes + 256);
  if (ends_with_gz(path)) {
    gzip_ = gzopen(path.c_str(), "wb6");
    if (gzip_ == nullptr)
      throw IoError(path, std::string("cannot create: ") + std::strerror(errno));
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr)
      throw IoError(path, std::string("cannot create: ") + std::strerror(errno));
  }
}

ChromeJsonOutput::~ChromeJsonOutput() {
  if (file_ != nullptr) std::fclose(file_);
  if (gzip_ != nullptr) gzclose(static_cast<gzFile>(gzip_));
}

void ChromeJsonOutput::flush() {
  if (buffer_.empty()) return;
  if (gzip_ != nullptr) {
    const int written =
        gzwrite(static_cast<gzFile>(gzip_), buffer_.data(), static_cast<unsigned>(buffer_.size()));
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
  append_json_string(buffer_, text);
  if (buffer_.size() >= kBufferBytes) flush();
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
                    static_cast<char>('0' + fraction / 10 % 10),
                    static_cast<char>('0' + fraction % 10)};
  std::size_t length = 4;
  while (digits[length - 1] == '0')
    --length;
  raw(std::string_view(digits, length));
}

void ChromeJsonOutput::close() {
  flush();
  if (gzip_ != nullptr) {
    const int status = gzclose(static_cast<gzFile>(gzip_));
    gzip_ = nullptr;
    if (status != Z_OK)
      throw IoError(path_, "gzip close failed with zlib status " + std::to_string(status));
  }
  if (file_ != nullptr) {
    const int status = std::fclose(file_);
    file_ = nullptr;
    if (status != 0) throw IoError(path_, std::string("close failed: ") + std::strerror(errno));
  }
}

}  // namespace tscope::trace
