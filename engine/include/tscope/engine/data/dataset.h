#pragma once
// What a data loader reads from: a dataset knows its size and turns a list of sample indices
// into one collated batch (for the engine, tensors with a leading batch dimension).

#include <cstddef>
#include <span>

namespace tscope::engine {

template <typename BatchType>
class Dataset {
 public:
  using Batch = BatchType;

  virtual ~Dataset() = default;

  virtual std::size_t size() const = 0;

  // Loads the samples at `indices` and collates them, in that order, into one batch. Loader
  // workers call this concurrently, so it must not modify shared state.
  virtual Batch load_batch(std::span<const std::size_t> indices) const = 0;
};

}  // namespace tscope::engine
