#pragma once
// Compresses text into one gzip member in memory, for tests and fuzzers that hand the readers
// valid .gz input made on the spot. Needs only zlib (no GoogleTest), so fuzzers include it too.

#include <zlib.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace tscope::testing {

inline std::string gzip_text(std::string_view text, int level = Z_DEFAULT_COMPRESSION) {
  z_stream stream{};
  if (deflateInit2(&stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("gzip_text: deflateInit2 failed");
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("gzip_text: deflate did not finish");
  return out;
}

}  // namespace tscope::testing
