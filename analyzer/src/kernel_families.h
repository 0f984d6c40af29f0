#pragma once
// What a GPU kernel does, from the names the libraries give their kernels: one table that the time
// classification (communication or compute), fusion (which kernels a fused kernel absorbs) and any
// analysis asking "is this a GEMM" read alike, so that an NCCL all-reduce or a cuBLAS nvjet GEMM is
// never taken for elementwise work.

#include <cstdint>
#include <string_view>

namespace tscope::analyzer {

enum class KernelFamily : std::uint8_t {
  kCommunication,  // NCCL and RCCL collectives, symmetric-memory and custom all-reduces
  kAttention,      // flash-attention, fused multi-head attention
  kSoftmax,
  kNormalization,  // layer, batch, group and RMS norm
  kConvolution,    // cuDNN, MIOpen and implicit-GEMM convolutions
  kGemm,           // cuBLAS (nvjet, split-K), cuBLASLt, CUTLASS, rocBLAS/Tensile, MAGMA
  kReduction,      // sums and other reductions, Triton's reduction kernels
  kElementwise,    // PyTorch's elementwise and vectorized kernels, Triton's pointwise kernels
  kOther,
};

KernelFamily kernel_family(std::string_view name);
std::string_view to_string(KernelFamily family);

// The memory-bound families one fused kernel absorbs (it reads its inputs and writes its output
// once): elementwise, reduction, normalization and softmax. Never a GEMM, convolution, attention
// or collective, which are library kernels of their own.
bool is_fusable(KernelFamily family);

}  // namespace tscope::analyzer
