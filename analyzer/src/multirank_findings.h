#pragma once
// The findings of a multi-rank analysis, from its per-rank and per-collective figures: a
// straggler and its cause, exposed communication, load imbalance.

#include <vector>

#include "tscope/analyzer/multirank.h"

namespace tscope::analyzer {

std::vector<Finding> find_multirank_problems(const MultiRankReport& report);

}  // namespace tscope::analyzer
