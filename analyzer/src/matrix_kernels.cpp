#include "tscope/analyzer/matrix_kernels.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "tscope/trace/named_values.h"

namespace tscope::analyzer {
namespace {

// Lowercase substrings of kernel names, checked in order; the first hit decides. Each line says why
// the pattern means what it does.
constexpr auto kPatterns = std::to_array<trace::NamedValue<MatrixUnit>>({
    // Matrix-vector products and rank-1 updates (cuBLAS gemv*, gemmk1) read each element once:
    // bandwidth-bound, so Tensor Cores would not make them faster.
    {"gemv", MatrixUnit::kNone},
    {"gemmk1", MatrixUnit::kNone},
    // The split-K reduction after a GEMM adds partial sums: elementwise work.
    {"splitkreduce", MatrixUnit::kNone},
    {"reducesplitk", MatrixUnit::kNone},
    // cuBLASLt and cuDNN xmma kernels name their instruction; "ffma" is the FP32 SIMT FMA.
    {"ffma", MatrixUnit::kScalar},
    // CUTLASS names its operator class: tensorop (mma.sync / wgmma) or simt.
    {"tensorop", MatrixUnit::kTensorCores},
    {"simt", MatrixUnit::kScalar},
    // TF32 exists only as a Tensor Core input type (cuDNN "tf32f32", CUTLASS "tfloat32_t").
    {"tf32", MatrixUnit::kTensorCores},
    {"tfloat32", MatrixUnit::kTensorCores},
    // cuBLAS and cuDNN name Tensor Core kernels after the MMA shape: Volta 884, Turing 1688,
    // Ampere 16816 (h: FP16 accumulate, s: FP32 accumulate, i: integer).
    {"884", MatrixUnit::kTensorCores},
    {"1688", MatrixUnit::kTensorCores},
    {"16816", MatrixUnit::kTensorCores},
    {"16832", MatrixUnit::kTensorCores},
    {"hmma", MatrixUnit::kTensorCores},
    {"imma", MatrixUnit::kTensorCores},
    {"wgmma", MatrixUnit::kTensorCores},
    // cuBLAS on Hopper ships nvjet kernels, all built on wgmma.
    {"nvjet", MatrixUnit::kTensorCores},
    // AMD: MIOpen's implicit GEMM on xdlops (gtcx, xdl) and Tensile's MFMA kernels ("_mi32x32").
    {"gtcx", MatrixUnit::kTensorCores},
    {"xdl", MatrixUnit::kTensorCores},
    {"mfma", MatrixUnit::kTensorCores},
    // FP32 SIMT GEMMs and convolutions: cuBLAS volta/ampere_sgemm, cuDNN scudnn, implicit and
    // explicit convolve_sgemm, the dgrad/wgrad engines, Winograd and FFT convolutions (their
    // transforms and complex gcgemm), CUTLASS and rocBLAS without a tensor op.
    {"sgemm", MatrixUnit::kScalar},
    {"scudnn", MatrixUnit::kScalar},
    {"gcgemm", MatrixUnit::kScalar},
    {"dgrad_engine", MatrixUnit::kScalar},
    {"wgrad_alg", MatrixUnit::kScalar},
    {"grad2d", MatrixUnit::kScalar},
    {"grouped_direct", MatrixUnit::kScalar},
    {"winograd", MatrixUnit::kScalar},
    {"fft2d", MatrixUnit::kScalar},
    {"convolve", MatrixUnit::kScalar},
    {"igemm", MatrixUnit::kScalar},
    {"gemm", MatrixUnit::kScalar},
});

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// Tensile names MFMA kernels "..._MI32x32x8x1_...": "_mi" and a digit.
bool tensile_mfma(std::string_view lower) {
  for (std::size_t at = lower.find("_mi"); at != std::string_view::npos;
       at = lower.find("_mi", at + 1)) {
    if (at + 3 < lower.size() && std::isdigit(static_cast<unsigned char>(lower[at + 3])))
      return true;
  }
  return false;
}

MatrixPrecision precision_of(std::string_view lower, MatrixUnit unit) {
  if (contains(lower, "e4m3") || contains(lower, "e5m2") || contains(lower, "fp8"))
    return MatrixPrecision::kFp8;
  if (contains(lower, "bf16") || contains(lower, "bfloat16")) return MatrixPrecision::kBf16;
  if (contains(lower, "tf32") || contains(lower, "tfloat32") || contains(lower, "s1688"))
    return MatrixPrecision::kTf32;
  if (contains(lower, "i8") || contains(lower, "int8") || contains(lower, "imma"))
    return MatrixPrecision::kInt8;
  if (contains(lower, "h884") || contains(lower, "h1688") || contains(lower, "h16816") ||
      contains(lower, "s884") || contains(lower, "s16816") || contains(lower, "f16") ||
      contains(lower, "half") || contains(lower, "hgemm") || contains(lower, "hmma"))
    return MatrixPrecision::kFp16;
  if (unit == MatrixUnit::kScalar && !contains(lower, "dgemm") && !contains(lower, "zgemm") &&
      !contains(lower, "double"))
    return MatrixPrecision::kFp32;
  return MatrixPrecision::kUnknown;
}

}  // namespace

MatrixKernel classify_matrix_kernel(std::string_view kernel_name) {
  const std::string lower = lowercase(kernel_name);
  if (contains(lower, "cijk_") && tensile_mfma(lower)) {
    return {MatrixUnit::kTensorCores, precision_of(lower, MatrixUnit::kTensorCores), "Cijk_*_MI*"};
  }
  // cuDNN's xmma kernels state their MMA tile ("tensor16x8x8") unless they are SIMT ("ffma").
  if (contains(lower, "xmma") && contains(lower, "tensor") && !contains(lower, "ffma")) {
    return {MatrixUnit::kTensorCores, precision_of(lower, MatrixUnit::kTensorCores),
            "xmma*tensor*"};
  }
  const auto* pattern = trace::first_contained_in(kPatterns, lower);
  if (pattern == nullptr) return {};
  return {pattern->value, precision_of(lower, pattern->value), pattern->name};
}

std::string_view to_string(MatrixPrecision precision) {
  switch (precision) {
    case MatrixPrecision::kFp32:
      return "fp32";
    case MatrixPrecision::kTf32:
      return "tf32";
    case MatrixPrecision::kFp16:
      return "fp16";
    case MatrixPrecision::kBf16:
      return "bf16";
    case MatrixPrecision::kInt8:
      return "int8";
    case MatrixPrecision::kFp8:
      return "fp8";
    case MatrixPrecision::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace tscope::analyzer
