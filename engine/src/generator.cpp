#include "tscope/engine/generator.h"

#include "philox.h"

namespace tscope::engine {

PhiloxStream Generator::reserve(std::uint64_t draws) {
  const PhiloxStream stream{key_, next_block_};
  next_block_ += (draws + 3) / 4;
  return stream;
}

std::uint64_t Generator::next_u64() {
  const PhiloxBlock block = philox_block(reserve(2), 0);
  return (static_cast<std::uint64_t>(block.word[1]) << 32) | block.word[0];
}

}  // namespace tscope::engine
