// libFuzzer entry point for the Google Benchmark JSON reader (`tscope bench compare` and `ratio`):
// any input must parse or throw RegressInputError naming the file, never crash or trip a sanitizer.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tscope/regress/error.h"
#include "tscope/regress/gbench_json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    tscope::regress::parse_gbench_json(std::string_view(reinterpret_cast<const char*>(data), size),
                                       "fuzz-results.json");
  } catch (const tscope::regress::RegressInputError&) {
  }
  return 0;
}
