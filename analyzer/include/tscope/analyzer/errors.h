#pragma once
// Typed errors of the analysis layer: options that cannot be applied to a trace (a step filter
// that is not a valid regular expression, an analysis name that does not exist).

#include <stdexcept>

namespace tscope::analyzer {

class AnalyzerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tscope::analyzer
