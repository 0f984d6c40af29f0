#pragma once
// Buffered output of the Chrome JSON writer: a plain file, or gzip when the path ends in ".gz",
// written as it goes so exporting a trace of any size needs a constant amount of memory. Also
// the JSON text primitives (escaped strings, exact numbers) the writer is built from.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tscope::trace {

class ChromeJsonOutput {
 public:
  // Throws IoError when the file cannot be created.
  explicit ChromeJsonOutput(const std::filesystem::path& path);
  ~ChromeJsonOutput();
  ChromeJsonOutput(const ChromeJsonOutput&) = delete;
  ChromeJsonOutput& operator=(const ChromeJsonOutput&) = delete;

  void raw(std::string_view text);
  void raw(char c);
  // A JSON string literal, escaped by append_json_string.
  void string(std::string_view text);
  void integer(std::int64_t value);
  void unsigned_integer(std::uint64_t value);
  // Shortest text that reads back to the same double; null for NaN and infinities.
  void real(double value);
  // Nanoseconds as microseconds with up to three decimals: 12345 -> 12.345.
  void micros(std::int64_t nanos);

  // Flushes and closes; throws IoError on any write failure. The destructor closes silently.
  void close();

 private:
  void flush();

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  void* gzip_ = nullptr;  // gzFile, kept opaque so zlib stays out of this header
  std::string buffer_;
};

}  // namespace tscope::trace
