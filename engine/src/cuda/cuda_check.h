#pragma once
// Every CUDA runtime and cuBLAS call goes through TSCOPE_CUDA_CHECK: a failure throws
// CudaError naming the call, its file:line and the library's own error string.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace tscope::engine::cuda {

[[noreturn]] void throw_cuda_error(const char* call, const char* file, int line,
                                   const char* error_name, const char* error_text);

inline void check_status(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw_cuda_error(call, file, line, cudaGetErrorName(status), cudaGetErrorString(status));
  }
}

inline void check_status(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw_cuda_error(call, file, line, cublasGetStatusName(status), cublasGetStatusString(status));
  }
}

// Kernel launches report configuration errors only through cudaGetLastError.
#define TSCOPE_CUDA_CHECK_LAUNCH(kernel) \
  ::tscope::engine::cuda::check_status(cudaGetLastError(), kernel, __FILE__, __LINE__)

}  // namespace tscope::engine::cuda

#define TSCOPE_CUDA_CHECK(call) \
  ::tscope::engine::cuda::check_status((call), #call, __FILE__, __LINE__)
