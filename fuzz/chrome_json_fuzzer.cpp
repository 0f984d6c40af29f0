// libFuzzer entry point for the Chrome JSON reader (built with -DTSCOPE_FUZZ=ON and clang): any
// input must load or fail with FormatError, never crash, hang or trip a sanitizer. Inputs that
// once failed are kept in corpus/chrome_json and replayed by the fuzz_corpus tests.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tscope::trace;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    // A small inflation bound keeps gzip inputs from spending the run on decompression.
    read_chrome_json(ChromeJsonInput::from_bytes(bytes, "fuzz-input.json", std::uint64_t{1} << 24));
  } catch (const FormatError&) {
  }
  return 0;
}
