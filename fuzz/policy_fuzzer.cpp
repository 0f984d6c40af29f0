// libFuzzer entry point for the regression policy file (`tscope bench compare --config`): any text
// must parse or throw RegressInputError naming the file and line. A parsed policy's patterns, globs
// and "re:" regular expressions alike, and its normalize rules are also matched against a few
// benchmark names.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tscope/regress/error.h"
#include "tscope/regress/policy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tscope::regress;
  try {
    const ComparePolicy policy = parse_policy_config(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.policy");
    for (const std::string_view name : {"BM_Matmul/64", "BM_Alloc/1024/real_time", ""}) {
      for (const ThresholdRule& rule : policy.thresholds)
        static_cast<void>(rule.pattern.matches(name));
      for (const ReferencePairing& normalizer : policy.normalizers)
        static_cast<void>(normalizer.reference_for(name));
    }
  } catch (const RegressInputError&) {
  }
  return 0;
}
