#pragma once
// Loads a native .tsc file into a Trace. A file cut off at any byte (a crashed recorder) loads
// every whole chunk before the cut and reports what was lost; any other damage throws FormatError
// naming the file and byte offset. A file is read a chunk at a time: beyond the trace it builds,
// the reader holds one chunk and its decoded columns, whatever the file's size, and memory running
// out (under ulimit -v) is a FormatError naming the file and the chunk's offset.

#include <cstdint>
#include <filesystem>
#include <span>

#include "tscope/trace/trace.h"

namespace tscope::trace {

// The 8 bytes every .tsc file starts with.
inline constexpr char kTscMagic[8] = {'T', 'S', 'C', 'O', 'P', 'E', '\x1a', '\n'};
inline constexpr std::uint32_t kTscVersion = 1;

struct TscReadResult {
  Trace trace;
  std::uint64_t chunks_read = 0;
  // Bytes after the last whole chunk (a cut-off tail); also recorded in the trace metadata.
  std::uint64_t lost_bytes = 0;
  bool truncated() const { return lost_bytes != 0; }
};

// Throws IoError when the file cannot be read, FormatError when it is not a valid .tsc.
TscReadResult read_tsc(const std::filesystem::path& path);
// Parses .tsc bytes already in memory; `path` only names the input in errors.
TscReadResult read_tsc(std::span<const std::uint8_t> bytes, const std::filesystem::path& path);

// True when `bytes` start with the .tsc magic.
bool looks_like_tsc(std::span<const std::uint8_t> bytes);

}  // namespace tscope::trace
