#pragma once
// A seeded random number source, passed explicitly to every random op so runs are reproducible.

#include <cstdint>
#include <random>

namespace tscope::engine {

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : engine_(seed) {}

  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace tscope::engine
