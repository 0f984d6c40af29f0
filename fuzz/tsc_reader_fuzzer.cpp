// libFuzzer entry point for the .tsc reader: any input must load or raise FormatError; any other
// exception, crash or sanitizer report is a bug. Inputs that found one are kept in
// corpus/tsc_reader and replayed by the fuzz_corpus tests. See tsc_file_from_fuzz_input for how an
// input becomes a file.

#include <cstddef>
#include <cstdint>
#include <span>

#include "tsc_test_files.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/tsc_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tscope::trace::testing::tsc_file_from_fuzz_input({data, size});
  try {
    tscope::trace::read_tsc(file, "fuzz.tsc");
  } catch (const tscope::trace::FormatError&) {
  }
  return 0;
}
