#include "tsc_layout.h"

#include <zlib.h>

namespace tscope::trace::tsc {

std::uint32_t chunk_checksum(std::span<const std::uint8_t> header,
                             std::span<const std::uint8_t> payload) {
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, header.data(), header.size());
  crc = crc32_z(crc, payload.data(), payload.size());
  return static_cast<std::uint32_t>(crc);
}

}  // namespace tscope::trace::tsc
