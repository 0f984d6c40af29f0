#pragma once
// The top host operators and GPU kernels by total time, with count, mean and percentiles.

#include <cstdint>
#include <string>
#include <vector>

#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

struct NameStats {
  std::string name;
  std::uint64_t count = 0;
  double total_ns = 0;
  double mean_ns = 0;
  double p50_ns = 0;
  double p95_ns = 0;
};

struct OpBreakdown {
  std::vector<NameStats> ops;      // CPU operators, most total time first
  std::vector<NameStats> kernels;  // GPU kernels, most total time first
};

OpBreakdown compute_op_breakdown(const AnalysisContext& context);

}  // namespace tscope::analyzer
