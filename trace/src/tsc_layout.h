#pragma once
// The byte layout of the .tsc format shared by its writer and reader; docs/trace-format.md is the
// specification this mirrors.

#include <cstddef>
#include <cstdint>
#include <span>

namespace tscope::trace::tsc {

// File header: 8-byte magic, u32 version, u32 flags (must be 0).
inline constexpr std::size_t kFileHeaderSize = 16;
// Chunk header: u8 type, 3 zero bytes, u32 uncompressed size, u32 compressed size, u32 CRC-32 of
// the first 12 header bytes followed by the compressed payload.
inline constexpr std::size_t kChunkHeaderSize = 16;
inline constexpr std::size_t kChunkChecksummedHeaderBytes = 12;
// No writer emits a bigger chunk; a header that claims more is damage, not data.
inline constexpr std::uint32_t kMaxChunkPayload = 64u << 20;

enum class ChunkType : std::uint8_t {
  kStrings = 1,
  kProcesses = 2,
  kTracks = 3,
  kSpans = 4,
  kInstants = 5,
  kCounterSamples = 6,
  kMemoryEvents = 7,
  kFlows = 8,
  kMetadata = 9,
};
inline constexpr std::uint8_t kLastChunkType = static_cast<std::uint8_t>(ChunkType::kMetadata);

// Which optional span fields follow in a spans chunk's detail stream, one flag byte per span.
inline constexpr std::uint8_t kSpanHasCorrelation = 1u << 0;
inline constexpr std::uint8_t kSpanHasExternalCorrelation = 1u << 1;
inline constexpr std::uint8_t kSpanHasKernel = 1u << 2;
inline constexpr std::uint8_t kSpanHasCopy = 1u << 3;
inline constexpr std::uint8_t kSpanHasOp = 1u << 4;
inline constexpr std::uint8_t kSpanHasArgs = 1u << 5;
inline constexpr std::uint8_t kSpanKnownFlags = (1u << 6) - 1;

// Argument value types.
inline constexpr std::uint8_t kArgInt = 0;
inline constexpr std::uint8_t kArgDouble = 1;
inline constexpr std::uint8_t kArgString = 2;

inline void store_u32(std::uint8_t* out, std::uint32_t value) {
  for (int byte = 0; byte < 4; ++byte)
    out[byte] = static_cast<std::uint8_t>(value >> (8 * byte));
}

inline std::uint32_t load_u32(const std::uint8_t* in) {
  std::uint32_t value = 0;
  for (int byte = 0; byte < 4; ++byte)
    value |= static_cast<std::uint32_t>(in[byte]) << (8 * byte);
  return value;
}

std::uint32_t chunk_checksum(std::span<const std::uint8_t> header,
                             std::span<const std::uint8_t> payload);

}  // namespace tscope::trace::tsc
