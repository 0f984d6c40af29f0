#pragma once
// Splits one epoch of a dataset into batches of sample indices: a seeded shuffle that is the
// same for a given (seed, epoch) on every machine, then fixed-size batches.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tscope::engine {

struct BatchPlanOptions {
  std::size_t batch_size = 64;
  bool shuffle = true;
  bool drop_last = false;  // drop a final batch smaller than batch_size
  std::uint64_t seed = 0;
};

class BatchPlan {
 public:
  // Throws std::invalid_argument when batch_size is zero.
  BatchPlan(std::size_t sample_count, std::uint64_t epoch, const BatchPlanOptions& options);

  std::size_t batch_count() const { return batch_count_; }
  std::span<const std::size_t> batch(std::size_t batch_index) const;

  // Batches an epoch of `sample_count` samples gives, without building the plan.
  static std::size_t batch_count_for(std::size_t sample_count, const BatchPlanOptions& options);

 private:
  std::vector<std::size_t> order_;
  std::size_t batch_size_;
  std::size_t batch_count_;
};

}  // namespace tscope::engine
