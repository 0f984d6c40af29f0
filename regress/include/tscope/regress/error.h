#pragma once
// The typed error of the regress layer: input that cannot be used (a missing or malformed
// benchmark file, a bad policy line), always naming the file and where in it.

#include <stdexcept>
#include <string>

namespace tscope::regress {

class RegressInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tscope::regress
