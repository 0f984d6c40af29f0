#pragma once
// cuDNN's status joins TSCOPE_CUDA_CHECK: a failed call throws CudaError naming the call, its
// file:line, cuDNN's status name and its last error message.

#include <cudnn.h>

#include "cuda/cuda_check.h"

namespace tscope::engine::cuda {

inline void check_status(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) {
    char message[512] = {};
    cudnnGetLastErrorString(message, sizeof(message));
    throw_cuda_error(call, file, line, cudnnGetErrorString(status), message);
  }
}

}  // namespace tscope::engine::cuda
