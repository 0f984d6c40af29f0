// Elementwise CUDA kernels: a dense path with 16-byte vector loads, and a strided path that
// walks any view with broadcasting. The math matches the CPU kernels (cpu/elementwise_kernels.cpp,
// cpu/gelu_math.h) operation for operation.

#include <cstdint>

#include "cuda/grid.h"
#include "cuda/launchers.h"

namespace tscope::engine::cuda {
namespace {

// The tanh form of GELU, with the constants of cpu/gelu_math.h.
constexpr float kGeluScale = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;

__device__ float gelu_value(float x) {
  return 0.5f * x * (1.0f + tanhf(kGeluScale * (x + kGeluCubic * x * x * x)));
}

__device__ float gelu_slope(float x) {
  const float t = tanhf(kGeluScale * (x + kGeluCubic * x * x * x));
  const float inner_slope = kGeluScale * (1.0f + 3.0f * kGeluCubic * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * inner_slope;
}

template <UnaryOp Op>
__device__ float apply_unary(float v, float s) {
  if constexpr (Op == UnaryOp::kNeg) return -v;
  if constexpr (Op == UnaryOp::kExp) return expf(v);
  if constexpr (Op == UnaryOp::kLog) return logf(v);
  if constexpr (Op == UnaryOp::kSqrt) return sqrtf(v);
  if constexpr (Op == UnaryOp::kRelu) return v > 0.0f ? v : 0.0f;
  if constexpr (Op == UnaryOp::kGelu) return gelu_value(v);
  if constexpr (Op == UnaryOp::kSigmoid) {
    // Split by sign so exp never overflows.
    if (v >= 0.0f) return 1.0f / (1.0f + expf(-v));
    const float e = expf(v);
    return e / (1.0f + e);
  }
  if constexpr (Op == UnaryOp::kTanh) return tanhf(v);
  if constexpr (Op == UnaryOp::kAddScalar) return v + s;
  if constexpr (Op == UnaryOp::kMulScalar) return v * s;
  if constexpr (Op == UnaryOp::kPowScalar) return powf(v, s);
  return v;
}

template <BinaryOp Op>
__device__ float apply_binary(float a, float b) {
  if constexpr (Op == BinaryOp::kAdd) return a + b;
  if constexpr (Op == BinaryOp::kSub) return a - b;
  if constexpr (Op == BinaryOp::kMul) return a * b;
  if constexpr (Op == BinaryOp::kDiv) return a / b;
  if constexpr (Op == BinaryOp::kReluBackward) return b > 0.0f ? a : 0.0f;
  if constexpr (Op == BinaryOp::kGeluBackward) return a * gelu_slope(b);
  if constexpr (Op == BinaryOp::kSigmoidBackward) return a * b * (1.0f - b);
  if constexpr (Op == BinaryOp::kTanhBackward) return a * (1.0f - b * b);
  return a;
}

// Element offsets of the first `operands` operands for linear output index `index`.
template <int Operands>
__device__ void strided_offsets(const StridedLayout& layout, std::int64_t index,
                                std::int64_t (&offsets)[Operands]) {
  for (int k = 0; k < Operands; ++k)
    offsets[k] = 0;
  for (int d = layout.rank - 1; d >= 0; --d) {
    const std::int64_t extent = layout.shape[d];
    const std::int64_t coordinate = index % extent;
    index /= extent;
    for (int k = 0; k < Operands; ++k)
      offsets[k] += coordinate * layout.strides[k][d];
  }
}

bool aligned16(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
}

template <UnaryOp Op>
__global__ void unary_vector4(float4* out, const float4* x, std::int64_t vectors, float s) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < vectors; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float4 v = x[i];
    out[i] = make_float4(apply_unary<Op>(v.x, s), apply_unary<Op>(v.y, s), apply_unary<Op>(v.z, s),
                         apply_unary<Op>(v.w, s));
  }
}

template <UnaryOp Op>
__global__ void unary_scalar_loop(float* out, const float* x, std::int64_t begin,
                                  std::int64_t count, float s) {
  for (std::int64_t i = begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = apply_unary<Op>(x[i], s);
  }
}

template <UnaryOp Op>
__global__ void unary_strided(float* out, const float* x, StridedLayout layout, std::int64_t count,
                              float s) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t at[2];
    strided_offsets<2>(layout, i, at);
    out[at[0]] = apply_unary<Op>(x[at[1]], s);
  }
}

template <BinaryOp Op>
__global__ void binary_vector4(float4* out, const float4* a, const float4* b,
                               std::int64_t vectors) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < vectors; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float4 u = a[i];
    const float4 v = b[i];
    out[i] = make_float4(apply_binary<Op>(u.x, v.x), apply_binary<Op>(u.y, v.y),
                         apply_binary<Op>(u.z, v.z), apply_binary<Op>(u.w, v.w));
  }
}

template <BinaryOp Op>
__global__ void binary_scalar_loop(float* out, const float* a, const float* b, std::int64_t begin,
                                   std::int64_t count) {
  for (std::int64_t i = begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = apply_binary<Op>(a[i], b[i]);
  }
}

template <BinaryOp Op>
__global__ void binary_strided(float* out, const float* a, const float* b, StridedLayout layout,
                               std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t at[3];
    strided_offsets<3>(layout, i, at);
    out[at[0]] = apply_binary<Op>(a[at[1]], b[at[2]]);
  }
}

template <typename T>
__global__ void copy_strided(T* dst, const T* src, StridedLayout layout, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t at[2];
    strided_offsets<2>(layout, i, at);
    dst[at[0]] = src[at[1]];
  }
}

template <typename T>
__global__ void fill_strided(T* dst, T value, StridedLayout layout, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t at[1];
    strided_offsets<1>(layout, i, at);
    dst[at[0]] = value;
  }
}

__global__ void scale_add_strided(float* dst, float scale, const float* src, float alpha,
                                  StridedLayout layout, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t at[2];
    strided_offsets<2>(layout, i, at);
    const float addend = alpha == 0.0f ? 0.0f : alpha * src[at[1]];
    dst[at[0]] = dst[at[0]] * scale + addend;
  }
}

// Each thread takes groups of four elements, one Philox block each: element i keeps draw i of
// the stream, as the CPU kernel's row-major walk does.
__global__ void bias_gelu_dropout(float* out, float* mask, const float* x, const float* bias,
                                  std::int64_t features, std::int64_t count, float keep_probability,
                                  float scale, PhiloxStream stream) {
  const std::int64_t groups = (count + 3) / 4;
  for (std::int64_t group = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       group < groups; group += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const PhiloxBlock draws = philox_block(stream, static_cast<std::uint64_t>(group));
    for (int lane = 0; lane < 4; ++lane) {
      const std::int64_t i = group * 4 + lane;
      if (i >= count) break;
      const float kept = philox_mask(draws.word[lane], keep_probability, scale);
      mask[i] = kept;
      out[i] = gelu_value(x[i] + bias[i % features]) * kept;
    }
  }
}

__global__ void bias_gelu_mask_backward(float* out, const float* grad, const float* x,
                                        const float* bias, const float* mask, std::int64_t features,
                                        std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = grad[i] * mask[i] * gelu_slope(x[i] + bias[i % features]);
  }
}

// The arithmetic of cpu::adam_step, in the same order, so both round alike. Block row y takes
// parameter y of the chunk; its blocks stride over that parameter's elements.
__global__ void adam_step(ParameterChunk chunk, AdamScalars s) {
  const int t = static_cast<int>(blockIdx.y);
  float* parameter = chunk.parameter[t];
  const float* gradient = chunk.gradient[t];
  float* first = chunk.first_state[t];
  float* second = chunk.second_state[t];
  const std::int64_t count = chunk.count[t];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float g = gradient[i] + s.l2_decay * parameter[i];
    const float m = s.beta1 * first[i] + (1.0f - s.beta1) * g;
    const float v = s.beta2 * second[i] + (1.0f - s.beta2) * g * g;
    first[i] = m;
    second[i] = v;
    const float denominator = sqrtf(v) * s.inverse_sqrt_correction2 + s.eps;
    parameter[i] = parameter[i] * s.decoupled_scale - s.step_size * m / denominator;
  }
}

// The arithmetic of cpu::sgd_step, in the same order.
template <bool kMomentum>
__global__ void sgd_step(ParameterChunk chunk, SgdScalars s) {
  const int t = static_cast<int>(blockIdx.y);
  float* parameter = chunk.parameter[t];
  const float* gradient = chunk.gradient[t];
  float* buffer = chunk.first_state[t];
  const std::int64_t count = chunk.count[t];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    float g = s.weight_decay != 0.0f ? gradient[i] + parameter[i] * s.weight_decay : gradient[i];
    if constexpr (kMomentum) {
      buffer[i] = buffer[i] * s.momentum + g;
      g = buffer[i];
    }
    parameter[i] = parameter[i] + s.alpha * g;
  }
}

// Blocks enough for the chunk's largest parameter, one row per parameter; the blocks past a
// smaller parameter's end exit at once.
dim3 chunk_grid(const ParameterChunk& chunk) {
  std::int64_t largest = 0;
  for (int t = 0; t < chunk.size; ++t)
    largest = chunk.count[t] > largest ? chunk.count[t] : largest;
  return dim3(largest == 0 ? 0u : blocks_for(largest), static_cast<unsigned int>(chunk.size));
}

template <UnaryOp Op>
void unary_dense(float* out, const float* x, std::int64_t count, float s, cudaStream_t stream) {
  std::int64_t done = 0;
  if (aligned16(out) && aligned16(x)) {
    const std::int64_t vectors = count / 4;
    if (vectors > 0) {
      unary_vector4<Op><<<blocks_for(vectors), kThreads, 0, stream>>>(
          reinterpret_cast<float4*>(out), reinterpret_cast<const float4*>(x), vectors, s);
    }
    done = vectors * 4;
  }
  if (done < count) {
    unary_scalar_loop<Op>
        <<<blocks_for(count - done), kThreads, 0, stream>>>(out, x, done, count, s);
  }
}

template <BinaryOp Op>
void binary_dense(float* out, const float* a, const float* b, std::int64_t count,
                  cudaStream_t stream) {
  std::int64_t done = 0;
  if (aligned16(out) && aligned16(a) && aligned16(b)) {
    const std::int64_t vectors = count / 4;
    if (vectors > 0) {
      binary_vector4<Op><<<blocks_for(vectors), kThreads, 0, stream>>>(
          reinterpret_cast<float4*>(out), reinterpret_cast<const float4*>(a),
          reinterpret_cast<const float4*>(b), vectors);
    }
    done = vectors * 4;
  }
  if (done < count) {
    binary_scalar_loop<Op>
        <<<blocks_for(count - done), kThreads, 0, stream>>>(out, a, b, done, count);
  }
}

// Runs Launcher<op>::run for the op chosen at run time: one kernel instantiation per op.
template <template <UnaryOp> class Launcher, typename... Args>
void dispatch_unary(UnaryOp op, Args... args) {
  switch (op) {
    case UnaryOp::kNeg:
      return Launcher<UnaryOp::kNeg>::run(args...);
    case UnaryOp::kExp:
      return Launcher<UnaryOp::kExp>::run(args...);
    case UnaryOp::kLog:
      return Launcher<UnaryOp::kLog>::run(args...);
    case UnaryOp::kSqrt:
      return Launcher<UnaryOp::kSqrt>::run(args...);
    case UnaryOp::kRelu:
      return Launcher<UnaryOp::kRelu>::run(args...);
    case UnaryOp::kGelu:
      return Launcher<UnaryOp::kGelu>::run(args...);
    case UnaryOp::kSigmoid:
      return Launcher<UnaryOp::kSigmoid>::run(args...);
    case UnaryOp::kTanh:
      return Launcher<UnaryOp::kTanh>::run(args...);
    case UnaryOp::kAddScalar:
      return Launcher<UnaryOp::kAddScalar>::run(args...);
    case UnaryOp::kMulScalar:
      return Launcher<UnaryOp::kMulScalar>::run(args...);
    case UnaryOp::kPowScalar:
      return Launcher<UnaryOp::kPowScalar>::run(args...);
  }
}

template <template <BinaryOp> class Launcher, typename... Args>
void dispatch_binary(BinaryOp op, Args... args) {
  switch (op) {
    case BinaryOp::kAdd:
      return Launcher<BinaryOp::kAdd>::run(args...);
    case BinaryOp::kSub:
      return Launcher<BinaryOp::kSub>::run(args...);
    case BinaryOp::kMul:
      return Launcher<BinaryOp::kMul>::run(args...);
    case BinaryOp::kDiv:
      return Launcher<BinaryOp::kDiv>::run(args...);
    case BinaryOp::kReluBackward:
      return Launcher<BinaryOp::kReluBackward>::run(args...);
    case BinaryOp::kGeluBackward:
      return Launcher<BinaryOp::kGeluBackward>::run(args...);
    case BinaryOp::kSigmoidBackward:
      return Launcher<BinaryOp::kSigmoidBackward>::run(args...);
    case BinaryOp::kTanhBackward:
      return Launcher<BinaryOp::kTanhBackward>::run(args...);
  }
}

template <UnaryOp Op>
struct UnaryDense {
  static void run(float* out, const float* x, std::int64_t count, float s, cudaStream_t stream) {
    unary_dense<Op>(out, x, count, s, stream);
  }
};

template <UnaryOp Op>
struct UnaryStrided {
  static void run(float* out, const float* x, const StridedLayout* layout, std::int64_t count,
                  float s, cudaStream_t stream) {
    unary_strided<Op><<<blocks_for(count), kThreads, 0, stream>>>(out, x, *layout, count, s);
  }
};

template <BinaryOp Op>
struct BinaryDense {
  static void run(float* out, const float* a, const float* b, std::int64_t count,
                  cudaStream_t stream) {
    binary_dense<Op>(out, a, b, count, stream);
  }
};

template <BinaryOp Op>
struct BinaryStrided {
  static void run(float* out, const float* a, const float* b, const StridedLayout* layout,
                  std::int64_t count, cudaStream_t stream) {
    binary_strided<Op><<<blocks_for(count), kThreads, 0, stream>>>(out, a, b, *layout, count);
  }
};

}  // namespace

void launch_unary_dense(UnaryOp op, float scalar, float* out, const float* x, std::int64_t count,
                        cudaStream_t stream) {
  if (count == 0) return;
  dispatch_unary<UnaryDense>(op, out, x, count, scalar, stream);
}

void launch_unary_strided(UnaryOp op, float scalar, float* out, const float* x,
                          const StridedLayout& layout, std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_unary<UnaryStrided>(op, out, x, &layout, count, scalar, stream);
}

void launch_binary_dense(BinaryOp op, float* out, const float* a, const float* b,
                         std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_binary<BinaryDense>(op, out, a, b, count, stream);
}

void launch_binary_strided(BinaryOp op, float* out, const float* a, const float* b,
                           const StridedLayout& layout, std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_binary<BinaryStrided>(op, out, a, b, &layout, count, stream);
}

void launch_copy(void* dst, const void* src, int element_bytes, const StridedLayout& layout,
                 std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  if (element_bytes == 8) {
    copy_strided<std::uint64_t><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<std::uint64_t*>(dst), static_cast<const std::uint64_t*>(src), layout, count);
  } else {
    copy_strided<std::uint32_t><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<std::uint32_t*>(dst), static_cast<const std::uint32_t*>(src), layout, count);
  }
}

void launch_fill(void* dst, std::uint64_t value_bits, int element_bytes,
                 const StridedLayout& layout, std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  if (element_bytes == 8) {
    fill_strided<std::uint64_t><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<std::uint64_t*>(dst), value_bits, layout, count);
  } else {
    fill_strided<std::uint32_t><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<std::uint32_t*>(dst), static_cast<std::uint32_t>(value_bits), layout, count);
  }
}

void launch_bias_gelu_dropout(float* out, float* mask, const float* x, const float* bias,
                              std::int64_t features, std::int64_t count, float keep_probability,
                              float scale, PhiloxStream stream, cudaStream_t cuda_stream) {
  if (count == 0) return;
  bias_gelu_dropout<<<blocks_for((count + 3) / 4), kThreads, 0, cuda_stream>>>(
      out, mask, x, bias, features, count, keep_probability, scale, stream);
}

void launch_bias_gelu_mask_backward(float* out, const float* grad, const float* x,
                                    const float* bias, const float* mask, std::int64_t features,
                                    std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  bias_gelu_mask_backward<<<blocks_for(count), kThreads, 0, stream>>>(out, grad, x, bias, mask,
                                                                      features, count);
}

void launch_adam_step(const ParameterChunk& chunk, const AdamScalars& scalars,
                      cudaStream_t stream) {
  const dim3 grid = chunk_grid(chunk);
  if (grid.x == 0 || grid.y == 0) return;
  adam_step<<<grid, kThreads, 0, stream>>>(chunk, scalars);
}

void launch_sgd_step(const ParameterChunk& chunk, const SgdScalars& scalars, cudaStream_t stream) {
  const dim3 grid = chunk_grid(chunk);
  if (grid.x == 0 || grid.y == 0) return;
  if (scalars.momentum != 0.0f) {
    sgd_step<true><<<grid, kThreads, 0, stream>>>(chunk, scalars);
  } else {
    sgd_step<false><<<grid, kThreads, 0, stream>>>(chunk, scalars);
  }
}

void launch_scale_add(float* dst, float scale, const float* src, float alpha,
                      const StridedLayout& layout, std::int64_t count, cudaStream_t stream) {
  if (count == 0) return;
  scale_add_strided<<<blocks_for(count), kThreads, 0, stream>>>(dst, scale, src, alpha, layout,
                                                                count);
}

}  // namespace tscope::engine::cuda
