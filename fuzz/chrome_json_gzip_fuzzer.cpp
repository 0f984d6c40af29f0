// libFuzzer entry point for gzip-compressed Chrome/Kineto JSON. The first byte picks the mode.
// 0: the rest is JSON text, compressed here into a valid gzip stream, so mutations of the text
// travel the inflating path to the parser. Otherwise the rest is the file itself after the gzip
// magic, so mutations damage the stream (headers, lengths, checksums, concatenated members). Either
// must load or fail with FormatError within the inflation bound.

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"

namespace {

std::string gzip(std::string_view text) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tscope::trace;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string file = data[0] == 0 ? gzip(rest) : "\x1f\x8b" + std::string(rest);
  try {
    // A small inflation bound keeps the run on parsing, not on inflating.
    read_chrome_json(
        ChromeJsonInput::from_bytes(file, "fuzz-input.json.gz", std::uint64_t{1} << 24));
  } catch (const FormatError&) {
  }
  return 0;
}
