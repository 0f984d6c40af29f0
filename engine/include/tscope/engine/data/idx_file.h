#pragma once
// Reader for the IDX format of (Fashion-)MNIST, gzip-compressed or plain: a big-endian header
// of dimensions followed by unsigned bytes. Inputs are untrusted and fully validated.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace tscope::engine {

struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> values;  // row-major, product(dims) bytes
};

// Reads an IDX file of unsigned bytes. Throws DataFileError naming the file when it is missing,
// not valid gzip, truncated, has a wrong magic number or element type, a zero or oversized
// dimension, or bytes after the declared data.
IdxArray read_idx_file(const std::filesystem::path& path);

}  // namespace tscope::engine
