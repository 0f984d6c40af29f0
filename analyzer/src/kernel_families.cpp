#include "kernel_families.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "tscope/trace/named_values.h"

namespace tscope::analyzer {
namespace {

// Lowercase substrings of kernel names, checked in order; the first hit decides. Families whose
// kernels name other families' words come first: a collective "AllReduce" is no reduction, a
// split-K "reduce" belongs to its GEMM, an attention kernel may say "softmax".
constexpr auto kFamilies = std::to_array<trace::NamedValue<KernelFamily>>({
    // NCCL (ncclKernel_*, ncclDevKernel_*), RCCL, PyTorch's symmetric-memory collectives
    // (multimem_all_reduce_kernel, one_shot_all_reduce_kernel, two_shot_...), vLLM's custom
    // all-reduce (cross_device_reduce_*) and DeepEP-style all-to-all kernels.
    {"nccl", KernelFamily::kCommunication},
    {"rccl", KernelFamily::kCommunication},
    {"multimem", KernelFamily::kCommunication},
    {"all_reduce", KernelFamily::kCommunication},
    {"allreduce", KernelFamily::kCommunication},
    {"cross_device_reduce", KernelFamily::kCommunication},
    {"all_gather", KernelFamily::kCommunication},
    {"allgather", KernelFamily::kCommunication},
    {"reduce_scatter", KernelFamily::kCommunication},
    {"reducescatter", KernelFamily::kCommunication},
    {"all_to_all", KernelFamily::kCommunication},
    {"alltoall", KernelFamily::kCommunication},
    // flash-attention (flash_fwd_kernel, flash::), cuDNN and xformers fused MHA (fmha_*),
    // PyTorch's efficient attention, Triton attention kernels.
    {"flash", KernelFamily::kAttention},
    {"fmha", KernelFamily::kAttention},
    {"attention", KernelFamily::kAttention},
    {"attn", KernelFamily::kAttention},
    {"softmax", KernelFamily::kSoftmax},
    {"layer_norm", KernelFamily::kNormalization},
    {"layernorm", KernelFamily::kNormalization},
    {"batch_norm", KernelFamily::kNormalization},
    {"batchnorm", KernelFamily::kNormalization},
    {"group_norm", KernelFamily::kNormalization},
    {"groupnorm", KernelFamily::kNormalization},
    {"rms_norm", KernelFamily::kNormalization},
    {"rmsnorm", KernelFamily::kNormalization},
    // cuDNN's batch-norm kernels (bn_fw_tr_*, bn_bw_*) before the cudnn prefix below.
    {"bn_fw", KernelFamily::kNormalization},
    {"bn_bw", KernelFamily::kNormalization},
    // Convolutions before GEMMs: implicit-GEMM convolutions name both (implicit_convolve_sgemm).
    // Not "conv" alone, which dtype conversions ("convert") hold too.
    {"convolve", KernelFamily::kConvolution},
    {"convolution", KernelFamily::kConvolution},
    {"conv1d", KernelFamily::kConvolution},
    {"conv2d", KernelFamily::kConvolution},
    {"conv3d", KernelFamily::kConvolution},
    {"conv_", KernelFamily::kConvolution},
    {"_conv", KernelFamily::kConvolution},
    {"cudnn", KernelFamily::kConvolution},
    {"wgrad", KernelFamily::kConvolution},
    {"dgrad", KernelFamily::kConvolution},
    {"fprop", KernelFamily::kConvolution},
    {"winograd", KernelFamily::kConvolution},
    {"fft2d", KernelFamily::kConvolution},
    {"gtcx", KernelFamily::kConvolution},
    // cuBLAS on Hopper ships nvjet kernels; its split-K reduction finishes a GEMM.
    {"nvjet", KernelFamily::kGemm},
    {"splitkreduce", KernelFamily::kGemm},
    {"reducesplitk", KernelFamily::kGemm},
    {"gemm", KernelFamily::kGemm},
    {"gemv", KernelFamily::kGemm},
    {"cublas", KernelFamily::kGemm},
    {"cutlass", KernelFamily::kGemm},
    {"cijk_", KernelFamily::kGemm},
    {"magma", KernelFamily::kGemm},
    {"matmul", KernelFamily::kGemm},
    // Triton: triton_red_* and triton_per_* (persistent) reduce, triton_poi_* are pointwise.
    {"triton_red", KernelFamily::kReduction},
    {"triton_per", KernelFamily::kReduction},
    {"triton_poi", KernelFamily::kElementwise},
    {"reduce", KernelFamily::kReduction},
    {"reduction", KernelFamily::kReduction},
    {"sum_kernel", KernelFamily::kReduction},
    {"elementwise", KernelFamily::kElementwise},
    {"functor", KernelFamily::kElementwise},
    {"pointwise", KernelFamily::kElementwise},
    {"add", KernelFamily::kElementwise},
    {"mul", KernelFamily::kElementwise},
    {"relu", KernelFamily::kElementwise},
    {"gelu", KernelFamily::kElementwise},
    {"silu", KernelFamily::kElementwise},
    {"dropout", KernelFamily::kElementwise},
    {"sigmoid", KernelFamily::kElementwise},
    {"tanh", KernelFamily::kElementwise},
    {"bias", KernelFamily::kElementwise},
    {"fill", KernelFamily::kElementwise},
});

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

}  // namespace

KernelFamily kernel_family(std::string_view name) {
  const auto* family = trace::first_contained_in(kFamilies, lowercase(name));
  return family == nullptr ? KernelFamily::kOther : family->value;
}

std::string_view to_string(KernelFamily family) {
  static constexpr std::array kNames{"communication", "attention",   "softmax",
                                     "normalization", "convolution", "gemm",
                                     "reduction",     "elementwise", "other"};
  return kNames[static_cast<std::size_t>(family)];
}

bool is_fusable(KernelFamily family) {
  return family == KernelFamily::kElementwise || family == KernelFamily::kReduction ||
         family == KernelFamily::kNormalization || family == KernelFamily::kSoftmax;
}

}  // namespace tscope::analyzer
