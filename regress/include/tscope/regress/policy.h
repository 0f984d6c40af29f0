#pragma once
// When a benchmark counts as regressed: slower by more than its threshold and, when the
// repetitions allow it, significant under the Mann-Whitney U test at level alpha.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "tscope/regress/name_pattern.h"
#include "tscope/regress/reference_ratio.h"

namespace tscope::regress {

struct ThresholdRule {
  NamePattern pattern;
  // Allowed slowdown as a fraction (0.05 is 5%); nullopt reports the benchmark without gating it.
  std::optional<double> threshold;
};

struct ComparePolicy {
  double alpha = 0.05;
  std::optional<double> default_threshold = 0.05;
  std::vector<ThresholdRule> thresholds;      // the first rule whose pattern matches wins
  std::vector<ReferencePairing> normalizers;  // compare these benchmarks as ratios to a reference

  std::optional<double> threshold_for(std::string_view name) const;
};

// Reads a policy file: one directive per line, '#' starts a comment.
//   alpha 0.01
//   threshold BM_Matmul/* 10%
//   threshold re:BM_Alloc.* none
//   normalize BM_EngineMatmul/(.*) BM_BlasSgemm/$1
// Throws RegressInputError naming the file and line on anything else.
ComparePolicy read_policy_config(const std::filesystem::path& path);
// The same for a policy file's text; `path` names it in errors.
ComparePolicy parse_policy_config(std::string_view text, const std::filesystem::path& path);

// Parses "5%", "0.05%" or "none"; throws RegressInputError mentioning `where` otherwise.
std::optional<double> parse_threshold(std::string_view text, std::string_view where);

}  // namespace tscope::regress
