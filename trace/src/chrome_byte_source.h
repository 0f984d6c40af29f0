#pragma once
// The text of a Chrome trace as a stream of chunks: a plain file read as it is, a gzip file (or
// several gzip members back to back) inflated in chunks as it is read, or bytes already in
// memory. Nothing is held beyond one compressed and one inflated chunk, so a reader's memory
// does not grow with the file.

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tscope::trace::chrome_json {

class ChromeByteSource {
 public:
  // The length up to which a text counts as small: its readers ask text_ends_within(kSmallText)
  // before the first read, to read it in one piece of its own size on the calling thread.
  static constexpr std::uint64_t kSmallText = std::uint64_t{64} << 10;

  // Throws IoError when the file cannot be opened.
  static ChromeByteSource open_file(const std::filesystem::path& path, std::uint64_t max_bytes);
  // `bytes` must outlive the source.
  static ChromeByteSource over_memory(std::string_view bytes, std::string source_name,
                                      std::uint64_t max_bytes);

  // True when `bytes` start with gzip's magic number.
  static bool is_gzip(std::string_view bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
  }

  ChromeByteSource(ChromeByteSource&&) noexcept;
  ChromeByteSource& operator=(ChromeByteSource&&) noexcept;
  ~ChromeByteSource();

  // Writes up to `capacity` more bytes of text to `out`; returns how many, 0 at the end.
  // Throws IoError for a failing read and FormatError (with the compressed offset) for a damaged
  // gzip stream or text beyond max_bytes.
  std::size_t read(char* out, std::size_t capacity);

  const std::string& source_name() const { return source_name_; }
  // Bytes of the file (compressed, for gzip) consumed so far, and the file's size when known.
  std::uint64_t input_offset() const { return input_offset_; }
  std::uint64_t input_size() const { return input_size_; }
  // The text still to come where it is known (a plain input: exactly, before the limit; a gzip
  // input once text_ends_within saw its end), so that a small input gets small buffers; for the
  // rest of gzip, whose text is longer than its input, the maximum.
  std::uint64_t text_left() const;
  // Whether the text still to come is at most `bytes` long. A gzip input, whose text length its
  // header does not give, inflates up to `bytes` and one byte more to see: the next reads hand
  // those bytes out first. Call it before the first read. Throws as read() does.
  bool text_ends_within(std::uint64_t bytes);
  // How many bytes a read into a fresh buffer should ask for: `most`, or a small input's whole
  // remaining text where text_left() knows it, and one byte more (which sees its end), so it
  // zeroes no larger buffer.
  std::size_t read_size(std::size_t most) const;

 private:
  ChromeByteSource() = default;
  std::size_t read_input(char* out, std::size_t capacity);
  std::size_t inflate_into(char* out, std::size_t capacity);
  void check_limit(std::size_t produced);

  std::string source_name_;
  std::FILE* file_ = nullptr;
  std::string_view memory_;
  std::uint64_t input_offset_ = 0;
  std::uint64_t input_size_ = 0;
  std::uint64_t max_bytes_ = 0;
  std::uint64_t produced_ = 0;

  // gzip state: the compressed chunk being inflated and zlib's stream, and the text that
  // text_ends_within inflated ahead, handed out from ahead_begin_.
  bool gzip_ = false;
  bool gzip_ended_ = false;
  std::unique_ptr<z_stream> stream_;
  std::vector<unsigned char> compressed_;
  std::size_t compressed_begin_ = 0;
  std::size_t compressed_end_ = 0;
  std::string inflated_ahead_;
  std::size_t ahead_begin_ = 0;
};

}  // namespace tscope::trace::chrome_json
