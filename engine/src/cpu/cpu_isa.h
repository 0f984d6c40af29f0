#pragma once
// Which vector instructions the engine's own CPU kernels use. The direct convolutions need
// AVX-512F; TSCOPE_MAX_CPU_ISA=avx2 keeps them off on a CPU that has it, so that the portable
// unfold + GEMM path runs as on a CPU without it: to reproduce on one machine what another
// computes or how fast, as ONEDNN_MAX_CPU_ISA does for oneDNN and OPENBLAS_CORETYPE for OpenBLAS.

#include <string_view>

namespace tscope::engine::cpu {

inline constexpr std::string_view kMaxCpuIsaVariable = "TSCOPE_MAX_CPU_ISA";

enum class CpuIsa { kAvx2, kAvx512 };

// The ceiling a TSCOPE_MAX_CPU_ISA value names, "avx2" or "avx512" in any case; throws
// EngineError naming the variable for anything else.
CpuIsa parse_max_cpu_isa(std::string_view value);

// Whether kernels may use AVX-512F: this CPU has it and TSCOPE_MAX_CPU_ISA (read once; unset,
// no ceiling) allows it.
bool avx512_allowed();

}  // namespace tscope::engine::cpu
