#include "chrome_byte_source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "tscope/trace/errors.h"

namespace tscope::trace::chrome_json {
namespace {

// Large enough that a read or an inflate call costs little per byte, small enough to stay in
// the caches that the parse reads next.
constexpr std::size_t kCompressedChunk = std::size_t{1} << 20;

// No larger than the input: a small trace (or a fuzzer's input) should not pay for zeroing a
// megabyte it never fills.
std::size_t compressed_chunk(std::uint64_t input_size) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(input_size, 4096, kCompressedChunk));
}

bool is_gzip_magic(const unsigned char* bytes, std::size_t size) {
  return ChromeByteSource::is_gzip({reinterpret_cast<const char*>(bytes), size});
}

}  // namespace

ChromeByteSource::ChromeByteSource(ChromeByteSource&& other) noexcept {
  *this = std::move(other);
}

ChromeByteSource& ChromeByteSource::operator=(ChromeByteSource&& other) noexcept {
  if (this == &other) return *this;
  if (file_ != nullptr) std::fclose(file_);
  if (stream_) inflateEnd(stream_.get());
  source_name_ = std::move(other.source_name_);
  file_ = std::exchange(other.file_, nullptr);
  memory_ = other.memory_;
  input_offset_ = other.input_offset_;
  input_size_ = other.input_size_;
  max_bytes_ = other.max_bytes_;
  produced_ = other.produced_;
  gzip_ = other.gzip_;
  gzip_ended_ = other.gzip_ended_;
  stream_ = std::move(other.stream_);
  compressed_ = std::move(other.compressed_);
  compressed_begin_ = other.compressed_begin_;
  compressed_end_ = other.compressed_end_;
  inflated_ahead_ = std::move(other.inflated_ahead_);
  ahead_begin_ = other.ahead_begin_;
  return *this;
}

ChromeByteSource::~ChromeByteSource() {
  if (file_ != nullptr) std::fclose(file_);
  if (stream_) inflateEnd(stream_.get());
}

ChromeByteSource ChromeByteSource::open_file(const std::filesystem::path& path,
                                             std::uint64_t max_bytes) {
  ChromeByteSource source;
  source.source_name_ = path.string();
  source.max_bytes_ = max_bytes;
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw IoError(path, "cannot open file");
  source.file_ = std::fopen(source.source_name_.c_str(), "rb");
  if (source.file_ == nullptr) throw IoError(path, "cannot open file");
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw IoError(path, "cannot read file size: " + error.message());
  source.input_size_ = size;
  // Reads go straight to their destination; stdio's own buffer would only add a copy.
  std::setvbuf(source.file_, nullptr, _IONBF, 0);
  source.compressed_.resize(compressed_chunk(size));
  source.compressed_end_ = source.read_input(reinterpret_cast<char*>(source.compressed_.data()),
                                             source.compressed_.size());
  source.gzip_ = is_gzip_magic(source.compressed_.data(), source.compressed_end_);
  return source;
}

ChromeByteSource ChromeByteSource::over_memory(std::string_view bytes, std::string source_name,
                                               std::uint64_t max_bytes) {
  ChromeByteSource source;
  source.source_name_ = std::move(source_name);
  source.max_bytes_ = max_bytes;
  source.memory_ = bytes;
  source.input_size_ = bytes.size();
  source.gzip_ = is_gzip_magic(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  if (source.gzip_) source.compressed_.resize(compressed_chunk(bytes.size()));
  return source;
}

std::uint64_t ChromeByteSource::text_left() const {
  if (gzip_) {
    return gzip_ended_ ? inflated_ahead_.size() - ahead_begin_
                       : std::numeric_limits<std::uint64_t>::max();
  }
  return (compressed_end_ - compressed_begin_) + (input_size_ - input_offset_);
}

bool ChromeByteSource::text_ends_within(std::uint64_t bytes) {
  if (gzip_ && !gzip_ended_ && inflated_ahead_.empty()) {
    inflated_ahead_.resize(static_cast<std::size_t>(bytes) + 1);
    inflated_ahead_.resize(inflate_into(inflated_ahead_.data(), inflated_ahead_.size()));
  }
  return text_left() <= bytes;
}

std::size_t ChromeByteSource::read_size(std::size_t most) const {
  return static_cast<std::size_t>(std::min<std::uint64_t>(most - 1, text_left()) + 1);
}

std::size_t ChromeByteSource::read_input(char* out, std::size_t capacity) {
  if (file_ == nullptr) {
    const std::size_t count = std::min<std::size_t>(capacity, memory_.size() - input_offset_);
    std::memcpy(out, memory_.data() + input_offset_, count);
    input_offset_ += count;
    return count;
  }
  const std::size_t count = std::fread(out, 1, capacity, file_);
  if (count < capacity && std::ferror(file_) != 0) {
    throw IoError(source_name_, "read failed after " + std::to_string(input_offset_) +
                                    " bytes: " + std::strerror(errno));
  }
  input_offset_ += count;
  return count;
}

void ChromeByteSource::check_limit(std::size_t produced) {
  produced_ += produced;
  if (produced_ <= max_bytes_) return;
  throw FormatError(
      source_name_, gzip_ ? input_offset_ : max_bytes_,
      gzip_ ? "gzip data inflates beyond the limit of " + std::to_string(max_bytes_) + " bytes"
            : "file is larger than the limit of " + std::to_string(max_bytes_) + " bytes");
}

std::size_t ChromeByteSource::read(char* out, std::size_t capacity) {
  std::size_t count = 0;
  if (gzip_) {
    if (ahead_begin_ < inflated_ahead_.size()) {
      count = std::min(capacity, inflated_ahead_.size() - ahead_begin_);
      std::memcpy(out, inflated_ahead_.data() + ahead_begin_, count);
      ahead_begin_ += count;
    }
    if (count < capacity) count += inflate_into(out + count, capacity - count);
    return count;
  }
  // open_file read the first chunk to sniff gzip; hand it out before reading on.
  if (compressed_begin_ < compressed_end_) {
    count = std::min(capacity, compressed_end_ - compressed_begin_);
    std::memcpy(out, compressed_.data() + compressed_begin_, count);
    compressed_begin_ += count;
  }
  if (count < capacity) count += read_input(out + count, capacity - count);
  check_limit(count);
  return count;
}

std::size_t ChromeByteSource::inflate_into(char* out, std::size_t capacity) {
  if (gzip_ended_) return 0;
  if (!stream_) {
    stream_ = std::make_unique<z_stream>();
    // 16 + MAX_WBITS: expect a gzip wrapper and verify its CRC.
    if (inflateInit2(stream_.get(), 16 + MAX_WBITS) != Z_OK) {
      stream_.reset();
      throw FormatError(source_name_, 0, "cannot initialise zlib");
    }
  }
  std::size_t produced = 0;
  // zlib counts in 32-bit units; chunks stay far below that.
  const std::size_t slice = std::min<std::size_t>(capacity, std::numeric_limits<uInt>::max() / 2);
  while (produced < slice) {
    if (compressed_begin_ == compressed_end_) {
      compressed_begin_ = 0;
      compressed_end_ = read_input(reinterpret_cast<char*>(compressed_.data()), compressed_.size());
    }
    const std::size_t available = compressed_end_ - compressed_begin_;
    stream_->next_in = compressed_.data() + compressed_begin_;
    stream_->avail_in = static_cast<uInt>(available);
    stream_->next_out = reinterpret_cast<Bytef*>(out + produced);
    stream_->avail_out = static_cast<uInt>(slice - produced);
    const int status = inflate(stream_.get(), Z_NO_FLUSH);
    compressed_begin_ += available - stream_->avail_in;
    produced = slice - stream_->avail_out;
    const std::uint64_t consumed = input_offset_ - (compressed_end_ - compressed_begin_);
    if (status == Z_STREAM_END) {
      // A .gz may hold several members back to back (gzip -c a b > c); read them all.
      if (compressed_begin_ == compressed_end_) {
        compressed_begin_ = 0;
        compressed_end_ =
            read_input(reinterpret_cast<char*>(compressed_.data()), compressed_.size());
      }
      if (compressed_end_ - compressed_begin_ >= 2 &&
          is_gzip_magic(compressed_.data() + compressed_begin_, 2)) {
        inflateReset(stream_.get());
        continue;
      }
      gzip_ended_ = true;
      break;
    }
    if (status == Z_BUF_ERROR && available == 0 && stream_->avail_out != 0) {
      throw FormatError(source_name_, consumed, "gzip data ends before its stream does");
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      throw FormatError(
          source_name_, consumed,
          std::string("gzip: ") + (stream_->msg != nullptr ? stream_->msg : "corrupt gzip data"));
    }
  }
  check_limit(produced);
  return produced;
}

}  // namespace tscope::trace::chrome_json
