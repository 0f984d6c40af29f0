// libFuzzer entry point for gzip-compressed Chrome/Kineto JSON. The first byte picks the mode.
// 0: the rest is JSON text, compressed here into a valid gzip stream, so mutations of the text
// travel the inflating path to the parser. Otherwise the rest is the file itself after the gzip
// magic, so mutations damage the stream (headers, lengths, checksums, concatenated members). Either
// must load or fail with FormatError within the inflation bound.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gzip_text.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tscope::trace;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string file = data[0] == 0 ? tscope::testing::gzip_text(rest, Z_BEST_SPEED)
                                        : "\x1f\x8b" + std::string(rest);
  try {
    // A small inflation bound keeps the run on parsing, not on inflating.
    read_chrome_json(
        ChromeJsonInput::from_bytes(file, "fuzz-input.json.gz", std::uint64_t{1} << 24));
  } catch (const FormatError&) {
  }
  return 0;
}
