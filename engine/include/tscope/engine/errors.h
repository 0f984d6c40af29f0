#pragma once
// Typed errors the engine throws: misuse of a tensor API (shapes, dtypes, autograd) and
// tensors of one op living on different devices. Out-of-memory has its own header.

#include <stdexcept>
#include <string>

namespace tscope::engine {

// A call the engine cannot honour: mismatched shapes, wrong dtype, bad dimension, and so on.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An op was given tensors on different devices; the message names the op and both devices.
class DeviceMismatch : public EngineError {
 public:
  using EngineError::EngineError;
};

}  // namespace tscope::engine
