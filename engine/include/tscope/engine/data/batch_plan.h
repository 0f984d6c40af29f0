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
  // Data-parallel sharding: the epoch is cut into global batches of batch_size * shard_count
  // samples, and this shard takes the shard_index-th contiguous part of each, so the shards of
  // one step together are the batch one process would take. A final global batch too small to
  // give every shard a sample is dropped.
  std::size_t shard_count = 1;
  std::size_t shard_index = 0;
};

class BatchPlan {
 public:
  // Throws std::invalid_argument when batch_size or shard_count is zero, or shard_index is not
  // below shard_count.
  BatchPlan(std::size_t sample_count, std::uint64_t epoch, const BatchPlanOptions& options);

  std::size_t batch_count() const { return batch_count_; }
  std::span<const std::size_t> batch(std::size_t batch_index) const;

  // Batches an epoch of `sample_count` samples gives, without building the plan.
  static std::size_t batch_count_for(std::size_t sample_count, const BatchPlanOptions& options);

 private:
  std::vector<std::size_t> order_;
  std::size_t global_batch_size_;
  std::size_t shard_count_;
  std::size_t shard_index_;
  std::size_t batch_count_;
};

}  // namespace tscope::engine
