#pragma once
// The bytes of a Chrome trace file, plain or gzip (recognised by its magic bytes, not its name),
// held with the zero padding simdjson needs after the last byte and bounded in size.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace tscope::trace {

// Default bound on the decompressed size, so a hostile .gz cannot exhaust memory (simdjson also
// parses at most 4 GiB in one document).
inline constexpr std::uint64_t kMaxChromeJsonBytes = std::uint64_t{2} << 30;

class ChromeJsonInput {
 public:
  // Throws IoError when the file cannot be read, FormatError (with the compressed offset) for a
  // damaged gzip stream or one that inflates beyond `max_bytes`.
  static ChromeJsonInput read_file(const std::filesystem::path& path,
                                   std::uint64_t max_bytes = kMaxChromeJsonBytes);
  // Copies in-memory bytes (fuzzing, benchmarks); gzip is recognised here too.
  static ChromeJsonInput from_bytes(std::string_view bytes, std::string source_name,
                                    std::uint64_t max_bytes = kMaxChromeJsonBytes);

  // The start of a file's JSON text for format sniffing: `head` itself, or as much as inflates
  // from it when it is the start of a gzip stream. Never throws.
  static std::string peek(std::span<const std::uint8_t> head);

  std::string_view json() const { return {buffer_.data(), size_}; }
  // simdjson may read up to its padding past the end; the buffer holds that many zero bytes.
  const char* padded_data() const { return buffer_.data(); }
  std::size_t padded_capacity() const { return buffer_.size(); }
  const std::string& source_name() const { return source_name_; }

 private:
  ChromeJsonInput(std::string bytes, std::string source_name);

  std::string buffer_;
  std::size_t size_ = 0;
  std::string source_name_;
};

}  // namespace tscope::trace
