#pragma once
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the counter-based generator cuRAND and PyTorch use on GPUs. Draw n of a stream is a
// pure function of the key and n, so every CUDA thread computes its own draws without shared
// state, and the CPU and CUDA kernels that consume one stream in the same order get the same
// values bit for bit (a dropout mask does not depend on the device it was drawn on).
//
// Plain C++17 with host/device qualifiers, so that nvcc and the C++20 engine both include it.

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define TSCOPE_HOST_DEVICE __host__ __device__
#else
#define TSCOPE_HOST_DEVICE
#endif

namespace tscope::engine {

// A range of draws reserved from a Generator: draw n is word n % 4 of the Philox block at
// counter first_block + n / 4, under the generator's key.
struct PhiloxStream {
  std::uint64_t key = 0;
  std::uint64_t first_block = 0;
};

struct PhiloxBlock {
  std::uint32_t word[4];
};

TSCOPE_HOST_DEVICE inline PhiloxBlock philox4x32_10(PhiloxBlock counter, std::uint32_t key0,
                                                    std::uint32_t key1) {
  constexpr std::uint32_t kMultiplier0 = 0xD2511F53u;
  constexpr std::uint32_t kMultiplier1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;  // the key schedule's golden-ratio increments
  constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;
  PhiloxBlock x = counter;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key0 += kWeyl0;
      key1 += kWeyl1;
    }
    const std::uint64_t product0 = static_cast<std::uint64_t>(kMultiplier0) * x.word[0];
    const std::uint64_t product1 = static_cast<std::uint64_t>(kMultiplier1) * x.word[2];
    const auto high0 = static_cast<std::uint32_t>(product0 >> 32);
    const auto low0 = static_cast<std::uint32_t>(product0);
    const auto high1 = static_cast<std::uint32_t>(product1 >> 32);
    const auto low1 = static_cast<std::uint32_t>(product1);
    x = PhiloxBlock{{high1 ^ x.word[1] ^ key0, low1, high0 ^ x.word[3] ^ key1, low0}};
  }
  return x;
}

// The four draws 4 * block .. 4 * block + 3 of a stream.
TSCOPE_HOST_DEVICE inline PhiloxBlock philox_block(PhiloxStream stream, std::uint64_t block) {
  const std::uint64_t counter = stream.first_block + block;
  return philox4x32_10(PhiloxBlock{{static_cast<std::uint32_t>(counter),
                                    static_cast<std::uint32_t>(counter >> 32), 0u, 0u}},
                       static_cast<std::uint32_t>(stream.key),
                       static_cast<std::uint32_t>(stream.key >> 32));
}

// A draw as a float in [0, 1): its top 24 bits, which a float holds exactly, so a comparison
// with a threshold decides alike on every device.
TSCOPE_HOST_DEVICE inline float philox_unit_float(std::uint32_t draw) {
  return static_cast<float>(draw >> 8) * (1.0f / 16777216.0f);
}

// The distributions the random kernels draw, one function each so both devices compute alike.
// Uniform in [low, high) from one draw.
TSCOPE_HOST_DEVICE inline float philox_uniform(std::uint32_t draw, float low, float high) {
  return low + (high - low) * philox_unit_float(draw);
}

// A dropout mask element from one draw: `scale` with probability keep_probability, else 0.
TSCOPE_HOST_DEVICE inline float philox_mask(std::uint32_t draw, float keep_probability,
                                            float scale) {
  return philox_unit_float(draw) < keep_probability ? scale : 0.0f;
}

// Normal from two draws (Box-Muller). The host and device maths libraries round log and cos
// differently, so the two devices agree to a few ulps here, not bit for bit.
TSCOPE_HOST_DEVICE inline float philox_normal(std::uint32_t first, std::uint32_t second, float mean,
                                              float stddev) {
  const float radius_draw = 1.0f - philox_unit_float(first);  // in (0, 1]: log never sees 0
  const float angle = 6.28318530718f * philox_unit_float(second);
  return mean + stddev * sqrtf(-2.0f * logf(radius_draw)) * cosf(angle);
}

// Draws 0, 1, 2, ... of a stream in order, one Philox block per four draws.
class PhiloxSequence {
 public:
  TSCOPE_HOST_DEVICE explicit PhiloxSequence(PhiloxStream stream) : stream_(stream) {}

  TSCOPE_HOST_DEVICE std::uint32_t next() {
    if (lane_ == 4) {
      block_ = philox_block(stream_, next_block_++);
      lane_ = 0;
    }
    return block_.word[lane_++];
  }

 private:
  PhiloxStream stream_;
  PhiloxBlock block_{};
  std::uint64_t next_block_ = 0;
  int lane_ = 4;
};

}  // namespace tscope::engine
