#pragma once
// What the analyzer tests on the real traces of ../shared share: loading one
// (TSCOPE_LOAD_SHARED_TRACE) and finding a finding by its kind.

#include <algorithm>
#include <string_view>
#include <vector>

#include "shared_trace.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

inline const Finding* find_kind(const std::vector<Finding>& findings, std::string_view kind) {
  const auto found = std::find_if(findings.begin(), findings.end(),
                                  [&](const Finding& finding) { return finding.kind == kind; });
  return found == findings.end() ? nullptr : &*found;
}

}  // namespace tscope::analyzer
