#include "cpu/cpu_isa.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "tscope/engine/errors.h"

namespace tscope::engine::cpu {

CpuIsa parse_max_cpu_isa(std::string_view value) {
  std::string lower(value);
  std::ranges::transform(lower, lower.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "avx2") return CpuIsa::kAvx2;
  if (lower == "avx512") return CpuIsa::kAvx512;
  throw EngineError(std::string(kMaxCpuIsaVariable) + ": expected avx2 or avx512, got '" +
                    std::string(value) + "'");
}

bool avx512_allowed() {
  static const bool allowed = [] {
    const char* ceiling = std::getenv(std::string(kMaxCpuIsaVariable).c_str());
    if (ceiling != nullptr && parse_max_cpu_isa(ceiling) == CpuIsa::kAvx2) return false;
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return allowed;
}

}  // namespace tscope::engine::cpu
