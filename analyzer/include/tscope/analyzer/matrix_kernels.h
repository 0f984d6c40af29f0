#pragma once
// Which GPU kernels are matrix products or convolutions, and whether they run on Tensor Cores
// (AMD: Matrix Cores), from the kernel's name: cuBLAS, cuBLASLt, cuDNN, CUTLASS, MIOpen and
// Tensile name their kernels after the instruction they are built on. The patterns and why each
// means what it does are in docs/analyzer.md ("Tensor Core use").

#include <cstdint>
#include <string_view>

namespace tscope::analyzer {

enum class MatrixUnit : std::uint8_t {
  kNone,         // not a matrix product or convolution
  kScalar,       // a GEMM or convolution on the FP32 SIMT pipes (FFMA)
  kTensorCores,  // a GEMM or convolution on Tensor Cores / Matrix Cores
};

enum class MatrixPrecision : std::uint8_t { kUnknown, kFp32, kTf32, kFp16, kBf16, kInt8, kFp8 };

struct MatrixKernel {
  MatrixUnit unit = MatrixUnit::kNone;
  MatrixPrecision precision = MatrixPrecision::kUnknown;
  std::string_view pattern;  // the name pattern that decided, for the report
};

MatrixKernel classify_matrix_kernel(std::string_view kernel_name);

std::string_view to_string(MatrixPrecision precision);

}  // namespace tscope::analyzer
