#include "tscope/engine/data/batch_plan.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

namespace tscope::engine {
namespace {

// splitmix64's finalizer: spreads (seed, epoch) over the whole state so that neighbouring
// epochs and seeds give unrelated permutations.
std::uint64_t mix(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

// Fisher-Yates written out because std::shuffle's algorithm is implementation-defined, and a
// seed must give the same order with every standard library. The modulo bias is below 2^-40
// for any dataset that fits in memory.
void seeded_shuffle(std::vector<std::size_t>& order, std::uint64_t seed, std::uint64_t epoch) {
  std::mt19937_64 generator(mix(seed ^ mix(epoch)));
  for (std::size_t i = order.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(generator() % i);
    std::swap(order[i - 1], order[j]);
  }
}

}  // namespace

std::size_t BatchPlan::batch_count_for(std::size_t sample_count, const BatchPlanOptions& options) {
  if (options.batch_size == 0) {
    throw std::invalid_argument("data loader: batch_size must be at least 1");
  }
  if (options.shard_count == 0 || options.shard_index >= options.shard_count) {
    throw std::invalid_argument("data loader: shard " + std::to_string(options.shard_index) +
                                " of " + std::to_string(options.shard_count) + " does not exist");
  }
  const std::size_t global = options.batch_size * options.shard_count;
  const std::size_t whole = sample_count / global;
  const std::size_t rest = sample_count % global;
  return whole + (options.drop_last || rest < options.shard_count ? 0 : 1);
}

BatchPlan::BatchPlan(std::size_t sample_count, std::uint64_t epoch, const BatchPlanOptions& options)
    : order_(sample_count),
      global_batch_size_(options.batch_size * options.shard_count),
      shard_count_(options.shard_count),
      shard_index_(options.shard_index),
      batch_count_(batch_count_for(sample_count, options)) {
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  if (options.shuffle) {
    seeded_shuffle(order_, options.seed, epoch);
  }
}

std::span<const std::size_t> BatchPlan::batch(std::size_t batch_index) const {
  if (batch_index >= batch_count_) {
    throw std::out_of_range("data loader: batch " + std::to_string(batch_index) +
                            " of an epoch of " + std::to_string(batch_count_));
  }
  const std::size_t begin = batch_index * global_batch_size_;
  const std::size_t size = std::min(order_.size(), begin + global_batch_size_) - begin;
  const std::size_t shard_begin = begin + shard_index_ * size / shard_count_;
  const std::size_t shard_end = begin + (shard_index_ + 1) * size / shard_count_;
  return std::span<const std::size_t>(order_).subspan(shard_begin, shard_end - shard_begin);
}

}  // namespace tscope::engine
