#pragma once
// A seeded random number source, passed explicitly to every random op so runs are reproducible.
// It hands out disjoint ranges of one Philox stream (engine/src/philox.h); a kernel reserves
// the draws it needs and computes them wherever it runs, so a seed gives the same values on the
// CPU and on a GPU.

#include <cstdint>

namespace tscope::engine {

// Defined in engine/src/philox.h, which the kernels that draw include.
struct PhiloxStream;

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : key_(seed) {}

  // Reserves `draws` 32-bit draws that no later reservation overlaps.
  PhiloxStream reserve(std::uint64_t draws);

  // One 64-bit value, for choices made on the host (a shuffle, the seed of another generator).
  std::uint64_t next_u64();

 private:
  std::uint64_t key_;
  std::uint64_t next_block_ = 0;
};

}  // namespace tscope::engine
