// Behaviour of DataLoader: coverage, seeded shuffle, ordering with several workers, bounded
// prefetch, and shutdown when the loop ends early, throws, or the epoch is destroyed.

#include "tscope/engine/data/data_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tscope::engine {
namespace {

using IndexBatch = std::vector<std::size_t>;

// Returns the indices it is asked for, so tests can see exactly what each batch holds. It can
// be slowed down, fail on one index, and reports the loads in flight.
class IndexDataset : public Dataset<IndexBatch> {
 public:
  explicit IndexDataset(std::size_t size) : size_(size) {}

  std::size_t size() const override { return size_; }

  IndexBatch load_batch(std::span<const std::size_t> indices) const override {
    ++in_flight_;
    ++started_;
    last_thread_ = std::this_thread::get_id();
    std::this_thread::sleep_for(delay_for(indices.front()));
    --in_flight_;
    if (failing_index_ &&
        std::find(indices.begin(), indices.end(), *failing_index_) != indices.end()) {
      throw std::runtime_error("cannot decode sample " + std::to_string(*failing_index_));
    }
    return IndexBatch(indices.begin(), indices.end());
  }

  // Early samples load slowest, so later batches finish first when several workers run.
  void slow_down_early_samples(std::chrono::milliseconds longest) { longest_delay_ = longest; }
  void fail_on(std::size_t index) { failing_index_ = index; }

  int in_flight() const { return in_flight_; }
  int started() const { return started_; }
  std::thread::id last_thread() const { return last_thread_; }

 private:
  std::chrono::microseconds delay_for(std::size_t index) const {
    if (longest_delay_.count() == 0 || size_ == 0) {
      return std::chrono::microseconds(0);
    }
    const auto longest = std::chrono::duration_cast<std::chrono::microseconds>(longest_delay_);
    return longest * static_cast<long>(size_ - index) / static_cast<long>(size_);
  }

  std::size_t size_;
  std::chrono::milliseconds longest_delay_{0};
  std::optional<std::size_t> failing_index_;
  mutable std::atomic<int> in_flight_{0};
  mutable std::atomic<int> started_{0};
  mutable std::atomic<std::thread::id> last_thread_{};
};

std::vector<IndexBatch> run_epoch(DataLoader<IndexBatch>& loader) {
  std::vector<IndexBatch> batches;
  for (auto& batch : loader) {
    batches.push_back(batch);
  }
  return batches;
}

std::vector<std::size_t> flatten(const std::vector<IndexBatch>& batches) {
  std::vector<std::size_t> all;
  for (const auto& batch : batches) {
    all.insert(all.end(), batch.begin(), batch.end());
  }
  return all;
}

DataLoaderOptions options_with(std::size_t batch_size, std::size_t workers, std::uint64_t seed) {
  DataLoaderOptions options;
  options.batch_size = batch_size;
  options.num_workers = workers;
  options.seed = seed;
  return options;
}

// `options` with the samples delivered in the dataset's order.
DataLoaderOptions unshuffled(DataLoaderOptions options) {
  options.shuffle = false;
  return options;
}

TEST(DataLoader, EpochVisitsEverySampleExactlyOnce) {
  IndexDataset dataset(103);
  DataLoader loader(dataset, options_with(10, 3, 7));
  auto seen = flatten(run_epoch(loader));
  std::sort(seen.begin(), seen.end());
  std::vector<std::size_t> expected(103);
  std::iota(expected.begin(), expected.end(), std::size_t{0});
  EXPECT_EQ(seen, expected);
}

TEST(DataLoader, KeepsTheShortLastBatchUnlessDropLast) {
  IndexDataset dataset(25);
  DataLoader keep(dataset, options_with(10, 0, 1));
  const auto kept = run_epoch(keep);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept.back().size(), 5u);
  EXPECT_EQ(keep.batches_per_epoch(), 3u);

  auto options = options_with(10, 0, 1);
  options.drop_last = true;
  DataLoader drop(dataset, options);
  const auto dropped = run_epoch(drop);
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped.back().size(), 10u);
  EXPECT_EQ(drop.batches_per_epoch(), 2u);
}

TEST(DataLoader, WithoutShuffleBatchesFollowDatasetOrder) {
  IndexDataset dataset(6);
  DataLoader loader(dataset, unshuffled(options_with(4, 2, 3)));
  EXPECT_EQ(run_epoch(loader), (std::vector<IndexBatch>{{0, 1, 2, 3}, {4, 5}}));
}

TEST(DataLoader, ShardsSplitEachSingleProcessBatchIntoContiguousParts) {
  IndexDataset dataset(103);
  DataLoader whole(dataset, options_with(10, 0, 7));
  const auto single = run_epoch(whole);
  std::vector<std::vector<IndexBatch>> shards;
  for (std::size_t shard = 0; shard < 2; ++shard) {
    auto options = options_with(5, 2, 7);
    options.shard_count = 2;
    options.shard_index = shard;
    DataLoader loader(dataset, options);
    shards.push_back(run_epoch(loader));
    EXPECT_EQ(loader.batches_per_epoch(), 11u);
  }
  ASSERT_EQ(shards[0].size(), single.size());
  for (std::size_t step = 0; step < single.size(); ++step) {
    IndexBatch joined = shards[0][step];
    joined.insert(joined.end(), shards[1][step].begin(), shards[1][step].end());
    EXPECT_EQ(joined, single[step]) << "step " << step;
  }
  // The last global batch of 3 samples gives 1 and 2.
  EXPECT_EQ(shards[0].back().size(), 1u);
  EXPECT_EQ(shards[1].back().size(), 2u);
}

TEST(DataLoader, AFinalBatchTooSmallForEveryShardIsDropped) {
  IndexDataset dataset(21);
  auto options = options_with(5, 0, 1);
  options.shard_count = 4;
  options.shard_index = 3;
  DataLoader loader(dataset, options);
  EXPECT_EQ(loader.batches_per_epoch(), 1u);
  options.shard_index = 4;
  EXPECT_THROW(DataLoader(dataset, options), std::invalid_argument);
}

TEST(DataLoader, SameSeedAndEpochGiveTheSameOrder) {
  IndexDataset dataset(50);
  DataLoader first(dataset, options_with(8, 0, 42));
  DataLoader second(dataset, options_with(8, 2, 42));
  EXPECT_EQ(run_epoch(first), run_epoch(second));
  EXPECT_EQ(run_epoch(first), run_epoch(second));
}

TEST(DataLoader, EachEpochShufflesDifferently) {
  IndexDataset dataset(50);
  DataLoader loader(dataset, options_with(8, 0, 42));
  const auto epoch0 = run_epoch(loader);
  const auto epoch1 = run_epoch(loader);
  EXPECT_NE(epoch0, epoch1);
  loader.set_epoch(0);
  EXPECT_EQ(run_epoch(loader), epoch0);
}

TEST(DataLoader, DifferentSeedsShuffleDifferently) {
  IndexDataset dataset(50);
  DataLoader first(dataset, options_with(8, 0, 1));
  DataLoader second(dataset, options_with(8, 0, 2));
  EXPECT_NE(run_epoch(first), run_epoch(second));
}

TEST(DataLoader, SeveralWorkersDeliverBatchesInOrderWhateverTheirTiming) {
  IndexDataset dataset(40);
  dataset.slow_down_early_samples(std::chrono::milliseconds(20));
  DataLoader in_caller(dataset, options_with(4, 0, 9));
  DataLoader with_workers(dataset, options_with(4, 4, 9));
  EXPECT_EQ(run_epoch(with_workers), run_epoch(in_caller));
}

TEST(DataLoader, NoWorkersLoadsOnTheCallingThread) {
  IndexDataset dataset(8);
  DataLoader loader(dataset, options_with(4, 0, 0));
  run_epoch(loader);
  EXPECT_EQ(dataset.last_thread(), std::this_thread::get_id());
}

TEST(DataLoader, PrefetchStaysWithinTheQueueBound) {
  IndexDataset dataset(64);
  auto options = options_with(1, 2, 0);
  options.prefetch_per_worker = 2;
  const int bound = 4;
  DataLoader loader(dataset, options);
  int consumed = 0;
  for ([[maybe_unused]] auto& batch : loader) {
    ++consumed;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    // The batch being handed over may be claimed just before `consumed` is counted.
    EXPECT_LE(dataset.started(), consumed + bound + 1);
  }
  EXPECT_EQ(consumed, 64);
}

TEST(DataLoader, BreakingOutOfTheLoopStopsTheWorkers) {
  IndexDataset dataset(1000);
  DataLoader loader(dataset, options_with(2, 4, 0));
  int consumed = 0;
  for ([[maybe_unused]] auto& batch : loader) {
    if (++consumed == 3) {
      break;
    }
  }
  EXPECT_EQ(dataset.in_flight(), 0);
  EXPECT_LE(dataset.started(), consumed + 8 + 1);
}

TEST(DataLoader, ExceptionInTheLoopBodyStopsTheWorkers) {
  IndexDataset dataset(1000);
  DataLoader loader(dataset, options_with(2, 4, 0));
  EXPECT_THROW(
      {
        for ([[maybe_unused]] auto& batch : loader) {
          throw std::logic_error("training step failed");
        }
      },
      std::logic_error);
  EXPECT_EQ(dataset.in_flight(), 0);
}

TEST(DataLoader, WorkerExceptionIsRethrownInTheConsumerAfterEarlierBatches) {
  IndexDataset dataset(40);
  dataset.fail_on(25);
  DataLoader loader(dataset, unshuffled(options_with(5, 3, 0)));
  std::size_t delivered = 0;
  try {
    for ([[maybe_unused]] auto& batch : loader) {
      ++delivered;
    }
    FAIL() << "the worker's exception was not rethrown";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "cannot decode sample 25");
  }
  EXPECT_EQ(delivered, 5u);
  EXPECT_EQ(dataset.in_flight(), 0);
}

TEST(DataLoader, DatasetExceptionWithoutWorkersReachesTheConsumer) {
  IndexDataset dataset(10);
  dataset.fail_on(3);
  DataLoader loader(dataset, unshuffled(options_with(2, 0, 0)));
  EXPECT_THROW(run_epoch(loader), std::runtime_error);
}

TEST(DataLoader, DestroyingLoaderAndEpochMidwayDoesNotHang) {
  IndexDataset dataset(1000);
  dataset.slow_down_early_samples(std::chrono::milliseconds(5));
  {
    DataLoader loader(dataset, options_with(1, 3, 0));
    auto position = loader.begin();
    ++position;
    // Workers are now blocked on a full queue or inside a load; both must end here.
  }
  EXPECT_EQ(dataset.in_flight(), 0);
}

TEST(DataLoader, EmptyDatasetGivesAnEmptyEpoch) {
  IndexDataset dataset(0);
  DataLoader loader(dataset, options_with(4, 2, 0));
  EXPECT_TRUE(run_epoch(loader).empty());
}

TEST(DataLoader, RejectsAZeroBatchSize) {
  IndexDataset dataset(10);
  EXPECT_THROW(DataLoader(dataset, options_with(0, 0, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace tscope::engine
