#pragma once
// Tensor Core use: the share of GEMM and convolution time spent in kernels that run on the FP32
// SIMT pipes instead of Tensor Cores, with the fix (TF32, autocast to bf16/fp16) and its
// estimated gain on the trace's device.

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_tensor_core_use(const AnalysisContext& context);

}  // namespace tscope::analyzer
