// libFuzzer entry point for the regression policy file (`tscope bench compare --config`): any text
// must parse or throw RegressInputError naming the file and line. A parsed policy's glob patterns
// are also matched against a few benchmark names; its "re:" patterns are only compiled, since
// std::regex backtracks exponentially on some patterns (name_pattern.h), which a user writes for
// themselves.

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
    for (const ThresholdRule& rule : policy.thresholds) {
      if (rule.pattern.text().starts_with("re:")) continue;
      for (const std::string_view name : {"BM_Matmul/64", "BM_Alloc/1024/real_time", ""})
        static_cast<void>(rule.pattern.matches(name));
    }
  } catch (const RegressInputError&) {
  }
  return 0;
}
