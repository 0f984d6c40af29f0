#include <string>

#include "cuda/cuda_check.h"
#include "tscope/engine/cuda.h"

namespace tscope::engine::cuda {

void throw_cuda_error(const char* call, const char* file, int line, const char* error_name,
                      const char* error_text) {
  throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  error_name + " (" + error_text + ")");
}

}  // namespace tscope::engine::cuda
