#pragma once
// Byte-level helpers for .tsc tests and the .tsc fuzzer: where each chunk of a file ends, and
// chunks with a valid header and checksum around any payload, to reach the decoder with crafted
// content.

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

#include "tscope/trace/tsc_reader.h"

namespace tscope::trace::testing {

using Bytes = std::vector<std::uint8_t>;

inline Bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

inline std::uint32_t le32(const std::uint8_t* bytes) {
  return bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) |
         (static_cast<std::uint32_t>(bytes[3]) << 24);
}

inline void put_le32(Bytes& out, std::uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8)
    out.push_back(static_cast<std::uint8_t>(value >> shift));
}

// Offsets just past each whole chunk, read from the chunk headers (docs/trace-format.md).
inline std::vector<std::size_t> chunk_ends(const Bytes& file) {
  std::vector<std::size_t> ends;
  std::size_t offset = 16;
  while (offset + 16 <= file.size()) {
    offset += 16 + le32(file.data() + offset + 8);
    ends.push_back(offset);
  }
  return ends;
}

inline Bytes file_header(std::uint32_t version = kTscVersion) {
  Bytes header(kTscMagic, kTscMagic + sizeof kTscMagic);
  put_le32(header, version);
  put_le32(header, 0);
  return header;
}

// Appends one chunk of `type` whose header claims `uncompressed_size` around the zstd frame
// `compressed`, with a correct checksum: what the frame holds is up to the caller.
inline void append_framed_chunk(Bytes& file, std::uint8_t type, std::uint32_t uncompressed_size,
                                std::span<const std::uint8_t> compressed) {
  Bytes header{type, 0, 0, 0};
  put_le32(header, uncompressed_size);
  put_le32(header, static_cast<std::uint32_t>(compressed.size()));
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, header.data(), header.size());
  crc = crc32_z(crc, compressed.data(), compressed.size());
  put_le32(header, static_cast<std::uint32_t>(crc));
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), compressed.begin(), compressed.end());
}

// Appends one chunk of `type` around `payload`, with correct sizes and checksum.
inline void append_chunk(Bytes& file, std::uint8_t type, const Bytes& payload) {
  Bytes compressed(ZSTD_compressBound(payload.size()));
  compressed.resize(
      ZSTD_compress(compressed.data(), compressed.size(), payload.data(), payload.size(), 1));
  append_framed_chunk(file, type, static_cast<std::uint32_t>(payload.size()), compressed);
}

// The .tsc file a fuzzer input stands for. Its first byte picks the mode. 0: the rest is a raw
// file, which exercises the header, framing and checksum checks. 1: the rest is a list of chunks
// as (u8 type, u16 little-endian length, payload), wrapped here into valid chunks so that
// mutations reach the payload decoders instead of stopping at the checksum.
inline Bytes tsc_file_from_fuzz_input(std::span<const std::uint8_t> input) {
  if (input.empty()) return {};
  const std::span<const std::uint8_t> rest = input.subspan(1);
  if (input[0] != 1) return Bytes(rest.begin(), rest.end());
  Bytes file = file_header();
  std::size_t position = 0;
  while (position + 3 <= rest.size()) {
    const std::size_t length = std::min<std::size_t>(rest[position + 1] | (rest[position + 2] << 8),
                                                     rest.size() - position - 3);
    const auto payload = rest.subspan(position + 3, length);
    append_chunk(file, rest[position], Bytes(payload.begin(), payload.end()));
    position += 3 + length;
  }
  return file;
}

}  // namespace tscope::trace::testing
