#pragma once
// A seeded random number source, passed explicitly to every random op so runs are reproducible.
// It hands out disjoint ranges of one Philox stream (tscope/engine/philox.h); a kernel reserves
// the draws it needs and computes them wherever it runs, so a seed gives the same values on the
// CPU and on a GPU.

#include <cstdint>

#include "tscope/engine/philox.h"

namespace tscope::engine {

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : key_(seed) {}

  // Reserves `draws` 32-bit draws that no later reservation overlaps.
  PhiloxStream reserve(std::uint64_t draws) {
    const PhiloxStream stream{key_, next_block_};
    next_block_ += (draws + 3) / 4;
    return stream;
  }

  // One 64-bit value, for choices made on the host (a shuffle, the seed of another generator).
  std::uint64_t next_u64() {
    const PhiloxBlock block = philox_block(reserve(2), 0);
    return (static_cast<std::uint64_t>(block.word[1]) << 32) | block.word[0];
  }

 private:
  std::uint64_t key_;
  std::uint64_t next_block_ = 0;
};

}  // namespace tscope::engine
