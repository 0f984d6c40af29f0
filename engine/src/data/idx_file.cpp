#include "tscope/engine/data/idx_file.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <string>

#include "tscope/engine/data/data_file_error.h"

namespace tscope::engine {
namespace {

constexpr std::uint8_t kUnsignedByteType = 0x08;
constexpr std::size_t kMaxDims = 4;
// Far above the 47 MB of Fashion-MNIST's training images, far below what would exhaust memory.
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;
constexpr std::size_t kReadChunk = std::size_t{1} << 20;

// gzread also reads plain files, so the reader accepts uncompressed IDX files as well.
class GzipStream {
 public:
  explicit GzipStream(const std::filesystem::path& path) : path_(path) {
    if (!std::filesystem::exists(path_)) {
      throw DataFileError(path_, 0, "file not found");
    }
    file_ = gzopen(path_.c_str(), "rb");
    if (file_ == nullptr) {
      throw DataFileError(path_, 0, "cannot open file");
    }
  }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;
  ~GzipStream() { gzclose(file_); }

  // Reads up to `size` bytes; fewer only at the end of the stream.
  std::size_t read(std::uint8_t* destination, std::size_t size) {
    std::size_t total = 0;
    while (total < size) {
      const auto request = static_cast<unsigned>(std::min<std::size_t>(size - total, kReadChunk));
      const int count = gzread(file_, destination + total, request);
      if (count < 0) {
        int code = Z_OK;
        const char* message = gzerror(file_, &code);
        throw DataFileError(path_, offset_ + total, std::string("corrupt gzip stream: ") + message);
      }
      if (count == 0) {
        // zlib reports a stream cut short as end of input with Z_BUF_ERROR, not as an error.
        int code = Z_OK;
        const char* message = gzerror(file_, &code);
        if (code != Z_OK) {
          throw DataFileError(path_, offset_ + total,
                              std::string("corrupt gzip stream: ") + message);
        }
        break;
      }
      total += static_cast<std::size_t>(count);
    }
    offset_ += total;
    return total;
  }

  std::uint64_t offset() const { return offset_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  gzFile file_ = nullptr;
  std::uint64_t offset_ = 0;
};

void read_exactly(GzipStream& stream, std::uint8_t* destination, std::size_t size,
                  const char* what) {
  const std::uint64_t start = stream.offset();
  if (stream.read(destination, size) != size) {
    throw DataFileError(stream.path(), start,
                        std::string("truncated: file ends inside the ") + what);
  }
}

std::uint32_t big_endian_u32(const std::uint8_t* bytes) {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
         (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
}

}  // namespace

IdxArray read_idx_file(const std::filesystem::path& path) {
  GzipStream stream(path);
  std::array<std::uint8_t, 4> magic{};
  read_exactly(stream, magic.data(), magic.size(), "magic number");
  if (magic[0] != 0 || magic[1] != 0) {
    throw DataFileError(path, 0, "not an IDX file (magic number must start with two zero bytes)");
  }
  if (magic[2] != kUnsignedByteType) {
    throw DataFileError(path, 2,
                        "unsupported IDX element type " + std::to_string(magic[2]) +
                            " (only unsigned bytes, type 8, are supported)");
  }
  const std::size_t rank = magic[3];
  if (rank == 0 || rank > kMaxDims) {
    throw DataFileError(
        path, 3, "IDX rank " + std::to_string(rank) + " is outside 1.." + std::to_string(kMaxDims));
  }

  IdxArray array;
  std::uint64_t element_count = 1;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    const std::uint64_t dim_offset = stream.offset();
    std::array<std::uint8_t, 4> dim_bytes{};
    read_exactly(stream, dim_bytes.data(), dim_bytes.size(), "dimension header");
    const std::uint32_t dim = big_endian_u32(dim_bytes.data());
    if (dim == 0) {
      throw DataFileError(path, dim_offset, "dimension " + std::to_string(axis) + " is zero");
    }
    element_count *= dim;
    if (element_count > kMaxElements) {
      throw DataFileError(path, dim_offset,
                          "declared size exceeds " + std::to_string(kMaxElements) + " elements");
    }
    array.dims.push_back(dim);
  }

  // Grow with the data actually present rather than trusting the header with one allocation.
  const std::uint64_t data_offset = stream.offset();
  while (array.values.size() < element_count) {
    const std::size_t already = array.values.size();
    const auto chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(element_count - already, kReadChunk));
    array.values.resize(already + chunk);
    if (stream.read(array.values.data() + already, chunk) != chunk) {
      throw DataFileError(path, stream.offset(),
                          "truncated: header declares " + std::to_string(element_count) +
                              " data bytes from byte " + std::to_string(data_offset) +
                              " but the file ends first");
    }
  }
  std::uint8_t extra = 0;
  if (stream.read(&extra, 1) != 0) {
    throw DataFileError(path, stream.offset() - 1, "unexpected bytes after the declared data");
  }
  return array;
}

}  // namespace tscope::engine
