// libFuzzer entry point for the .tsc reader: any input must load or raise FormatError; any other
// exception, crash or sanitizer report is a bug. Inputs that found one are kept in corpus/.

#include <cstddef>
#include <cstdint>
#include <span>

#include "tscope/trace/errors.h"
#include "tscope/trace/tsc_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    tscope::trace::read_tsc(std::span<const std::uint8_t>(data, size), "fuzz.tsc");
  } catch (const tscope::trace::FormatError&) {
  }
  return 0;
}
