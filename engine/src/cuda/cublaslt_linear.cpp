// The fused linear layer through cuBLASLt: one GEMM whose epilogue adds the bias and applies the
// activation (RELU_BIAS, or GELU_AUX_BIAS, which also stores the pre-activation for the
// gradient), and for the backward pass one GEMM for the weight gradient whose BGRADB epilogue
// reduces the bias gradient on the way. cuBLASLt is column-major: row-major [rows, cols] data is
// read as its [cols, rows] transpose, so out^T = W x^T and dW = x^T dZ need no copies. cuBLASLt's
// GELU is the tanh form, the one the CPU kernels compute.

#include <cublasLt.h>

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "cuda/cuda_check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_context.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cuda {
namespace {

// Enough for cuBLASLt's fastest kernels at these sizes; what a pick needs is taken from the
// caching allocator.
constexpr std::uint64_t kMaxWorkspaceBytes = 32ull << 20;
// GELU's auxiliary output needs a leading dimension divisible by 8.
constexpr std::int64_t kAuxAlignment = 8;

// One handle per device, never destroyed, like the device state.
cublasLtHandle_t cublaslt_handle(Device device) {
  static std::mutex mutex;
  static auto* handles = new std::map<int, cublasLtHandle_t>();
  compute_stream(device);
  const std::lock_guard lock(mutex);
  auto [entry, inserted] = handles->try_emplace(device.index(), nullptr);
  if (inserted) {
    cublasLtHandle_t handle = nullptr;
    const cublasStatus_t status = cublasLtCreate(&handle);
    if (status != CUBLAS_STATUS_SUCCESS) handles->erase(entry);
    TSCOPE_CUDA_CHECK(status);
    entry->second = handle;
  }
  return entry->second;
}

template <typename Handle, auto kDestroy>
struct HandleDeleter {
  void operator()(Handle handle) const { kDestroy(handle); }
};
template <typename Handle, auto kDestroy>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, HandleDeleter<Handle, kDestroy>>;
using MatmulDescriptor = Owned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using MatrixLayout = Owned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using Preference = Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

std::int64_t checked_extent(std::int64_t value, const char* op) {
  if (value > INT_MAX) {
    throw EngineError(std::string(op) + ": extent " + std::to_string(value) +
                      " exceeds what cuBLASLt accepts");
  }
  return value;
}

// A column-major rows x cols float32 matrix with leading dimension `leading`.
MatrixLayout matrix_layout(std::int64_t rows, std::int64_t cols, std::int64_t leading) {
  cublasLtMatrixLayout_t raw = nullptr;
  TSCOPE_CUDA_CHECK(cublasLtMatrixLayoutCreate(&raw, CUDA_R_32F, static_cast<std::uint64_t>(rows),
                                               static_cast<std::uint64_t>(cols), leading));
  return MatrixLayout(raw);
}

template <typename Value>
void set_attribute(cublasLtMatmulDesc_t descriptor, cublasLtMatmulDescAttributes_t attribute,
                   const Value& value) {
  TSCOPE_CUDA_CHECK(cublasLtMatmulDescSetAttribute(descriptor, attribute, &value, sizeof(value)));
}

// D (m x n) = op(A) op(B) with an epilogue, as one cuBLASLt call.
struct LtGemm {
  cublasOperation_t transpose_a = CUBLAS_OP_N;
  cublasOperation_t transpose_b = CUBLAS_OP_N;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  const float* a = nullptr;
  std::int64_t lda = 0;
  const float* b = nullptr;
  std::int64_t ldb = 0;
  float* d = nullptr;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;  // the bias read, or the bias gradient written
  void* aux = nullptr;
  std::int64_t aux_leading = 0;
};

void run_lt_gemm(const LtGemm& gemm, Device device, const char* op) {
  const cublasLtHandle_t handle = cublaslt_handle(device);
  cublasLtMatmulDesc_t raw_descriptor = nullptr;
  TSCOPE_CUDA_CHECK(cublasLtMatmulDescCreate(
      &raw_descriptor, cuda_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
      CUDA_R_32F));
  const MatmulDescriptor descriptor(raw_descriptor);
  set_attribute(raw_descriptor, CUBLASLT_MATMUL_DESC_TRANSA, gemm.transpose_a);
  set_attribute(raw_descriptor, CUBLASLT_MATMUL_DESC_TRANSB, gemm.transpose_b);
  set_attribute(raw_descriptor, CUBLASLT_MATMUL_DESC_EPILOGUE, gemm.epilogue);
  set_attribute(raw_descriptor, CUBLASLT_MATMUL_DESC_BIAS_POINTER, gemm.bias);
  if (gemm.aux != nullptr) {
    set_attribute(raw_descriptor, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, gemm.aux);
    set_attribute(raw_descriptor, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, gemm.aux_leading);
  }
  const bool a_transposed = gemm.transpose_a == CUBLAS_OP_T;
  const bool b_transposed = gemm.transpose_b == CUBLAS_OP_T;
  const MatrixLayout layout_a = a_transposed ? matrix_layout(gemm.k, gemm.m, gemm.lda)
                                             : matrix_layout(gemm.m, gemm.k, gemm.lda);
  const MatrixLayout layout_b = b_transposed ? matrix_layout(gemm.n, gemm.k, gemm.ldb)
                                             : matrix_layout(gemm.k, gemm.n, gemm.ldb);
  const MatrixLayout layout_d = matrix_layout(gemm.m, gemm.n, gemm.m);

  cublasLtMatmulPreference_t raw_preference = nullptr;
  TSCOPE_CUDA_CHECK(cublasLtMatmulPreferenceCreate(&raw_preference));
  const Preference preference(raw_preference);
  TSCOPE_CUDA_CHECK(
      cublasLtMatmulPreferenceSetAttribute(raw_preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &kMaxWorkspaceBytes, sizeof(kMaxWorkspaceBytes)));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  TSCOPE_CUDA_CHECK(cublasLtMatmulAlgoGetHeuristic(handle, raw_descriptor, layout_a.get(),
                                                   layout_b.get(), layout_d.get(), layout_d.get(),
                                                   raw_preference, 1, &heuristic, &found));
  if (found == 0) {
    throw EngineError(std::string(op) + ": cuBLASLt offers no algorithm for " +
                      std::to_string(gemm.m) + " x " + std::to_string(gemm.n) + " x " +
                      std::to_string(gemm.k) + " with this epilogue");
  }
  const Tensor workspace =
      heuristic.workspaceSize == 0
          ? Tensor()
          : empty({static_cast<std::int64_t>((heuristic.workspaceSize + sizeof(float) - 1) /
                                             sizeof(float))},
                  {.device = device});
  const float alpha = 1.0f;
  const float beta = 0.0f;
  TSCOPE_CUDA_CHECK(cublasLtMatmul(handle, raw_descriptor, &alpha, gemm.a, layout_a.get(), gemm.b,
                                   layout_b.get(), &beta, gemm.d, layout_d.get(), gemm.d,
                                   layout_d.get(), &heuristic.algo,
                                   workspace.defined() ? workspace.raw_data() : nullptr,
                                   heuristic.workspaceSize, compute_stream(device)));
}

void require_float32(std::initializer_list<const Tensor*> tensors, const char* op) {
  for (const Tensor* tensor : tensors) {
    if (tensor->dtype() != DType::kFloat32) {
      throw EngineError(std::string(op) + " kernel: cuBLASLt path takes float32 tensors");
    }
  }
}

}  // namespace

std::pair<Tensor, Tensor> linear_activation(const Tensor& x, const Tensor& weight,
                                            const Tensor& bias, FusedActivation activation) {
  constexpr const char* kOp = "linear_activation";
  require_float32({&x, &weight, &bias}, kOp);
  const std::int64_t rows = checked_extent(x.shape()[0], kOp);
  const std::int64_t in_features = checked_extent(x.shape()[1], kOp);
  const std::int64_t out_features = checked_extent(weight.shape()[0], kOp);
  const Device device = x.device();
  const bool gelu = activation == FusedActivation::kGelu;
  if (rows == 0 || out_features == 0 || in_features == 0) {
    // Nothing for a GEMM to do: the layer is activation(bias) broadcast, or empty.
    const Tensor pre_activation = cuda::add(zeros({rows, out_features}, {.device = device}), bias);
    return {gelu ? cuda::gelu(pre_activation) : cuda::relu(pre_activation),
            gelu ? pre_activation : Tensor()};
  }
  const Tensor input = dense(x);
  const Tensor filters = dense(weight);
  const Tensor shift = dense(bias);
  Tensor out = empty({rows, out_features}, {.device = device});
  const std::int64_t aux_leading =
      (out_features + kAuxAlignment - 1) / kAuxAlignment * kAuxAlignment;
  const Tensor aux = gelu ? empty({rows, aux_leading}, {.device = device}) : Tensor();
  run_lt_gemm({.transpose_a = CUBLAS_OP_T,
               .transpose_b = CUBLAS_OP_N,
               .m = out_features,
               .n = rows,
               .k = in_features,
               .a = static_cast<const float*>(filters.raw_data()),
               .lda = in_features,
               .b = static_cast<const float*>(input.raw_data()),
               .ldb = in_features,
               .d = static_cast<float*>(out.raw_data()),
               .epilogue = gelu ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_RELU_BIAS,
               .bias = shift.raw_data(),
               .aux = gelu ? aux.raw_data() : nullptr,
               .aux_leading = aux_leading},
              device, kOp);
  return {out, gelu ? aux.narrow(1, 0, out_features) : Tensor()};
}

std::pair<Tensor, Tensor> linear_weight_bias_backward(const Tensor& grad, const Tensor& x) {
  constexpr const char* kOp = "linear_weight_bias_backward";
  require_float32({&grad, &x}, kOp);
  const std::int64_t rows = checked_extent(x.shape()[0], kOp);
  const std::int64_t in_features = checked_extent(x.shape()[1], kOp);
  const std::int64_t out_features = checked_extent(grad.shape()[1], kOp);
  const Device device = x.device();
  if (rows == 0 || out_features == 0 || in_features == 0) {
    const std::int64_t row_dim[] = {0};
    return {zeros({out_features, in_features}, {.device = device}),
            rows == 0 ? zeros({out_features}, {.device = device})
                      : cuda::sum(grad, row_dim).reshape({out_features})};
  }
  const Tensor input = dense(x);
  const Tensor pre_activation_grad = dense(grad);
  Tensor weight_grad = empty({out_features, in_features}, {.device = device});
  Tensor bias_grad = empty({out_features}, {.device = device});
  // dW^T (in x out, column-major) = x^T (in x rows) dZ (rows x out); BGRADB sums dZ over the
  // rows, the GEMM's k dimension.
  run_lt_gemm({.transpose_a = CUBLAS_OP_N,
               .transpose_b = CUBLAS_OP_T,
               .m = in_features,
               .n = out_features,
               .k = rows,
               .a = static_cast<const float*>(input.raw_data()),
               .lda = in_features,
               .b = static_cast<const float*>(pre_activation_grad.raw_data()),
               .ldb = out_features,
               .d = static_cast<float*>(weight_grad.raw_data()),
               .epilogue = CUBLASLT_EPILOGUE_BGRADB,
               .bias = bias_grad.raw_data()},
              device, kOp);
  return {weight_grad, bias_grad};
}

}  // namespace tscope::engine::cuda
