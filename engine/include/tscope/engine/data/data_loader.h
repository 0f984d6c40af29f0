#pragma once
// Iterates a Dataset in batches, PyTorch style: `for (auto& batch : loader)` runs one epoch,
// with a seeded shuffle, `num_workers` threads loading ahead into a bounded queue, and batches
// always delivered in order. Leaving the loop early, by break or exception, stops the workers.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tscope/engine/data/batch_plan.h"
#include "tscope/engine/data/dataset.h"
#include "tscope/engine/data/ordered_prefetcher.h"
#include "tscope/engine/transfer.h"
#include "tscope/profiler/record.h"

namespace tscope::engine {

struct DataLoaderOptions {
  std::size_t batch_size = 64;
  bool shuffle = true;
  bool drop_last = false;
  std::uint64_t seed = 0;
  std::size_t num_workers = 0;          // 0: batches load on the consuming thread
  std::size_t prefetch_per_worker = 2;  // queue bound: num_workers * prefetch_per_worker batches
  // Copies each batch into pinned host memory as it is loaded (on the worker threads), so that
  // to_device(batch, device, true) copies it asynchronously. Needs a CUDA device.
  bool pin_memory = false;
  // This rank's contiguous part of every global batch of batch_size * shard_count samples (see
  // BatchPlanOptions): data-parallel ranks load disjoint parts of one single-process batch.
  std::size_t shard_count = 1;
  std::size_t shard_index = 0;
};

// Batches pin_memory can pin: LabeledBatch, or any type with its own pin_memory overload.
template <typename Batch>
concept PinnableBatch = requires(const Batch& batch) {
  { pin_memory(batch) } -> std::convertible_to<Batch>;
};

template <typename Batch>
class DataLoader {
  // Everything one epoch needs, owned by its iterator so that the epoch's threads end when the
  // loop that iterates it ends. Members are destroyed bottom-up: workers stop before the slots
  // they write into go away.
  class Epoch {
   public:
    Epoch(const Dataset<Batch>& dataset, const DataLoaderOptions& options, std::uint64_t epoch)
        : dataset_(dataset),
          plan_(dataset.size(), epoch, plan_options(options)),
          slots_(options.num_workers == 0 ? 1 : options.num_workers * options.prefetch_per_worker),
          handoffs_(slots_.size()),
          prefetcher_(plan_.batch_count(), options.num_workers, slots_.size(),
                      [this, pin = options.pin_memory, threaded = options.num_workers > 0](
                          std::size_t batch, std::size_t slot) {
                        const profiler::Range load("load batch", trace::Category::kDataLoaderLoad,
                                                   {{"batch", batch}});
                        // The arrow to the wait that takes this batch, when a worker thread
                        // loads it: what the step's dependency graph follows from a waiting
                        // training thread to its loader. (Without workers the load runs inside
                        // the wait.)
                        if (threaded) {
                          handoffs_[slot] = profiler::new_flow_id();
                          profiler::flow_start(handoffs_[slot], trace::FlowKind::kHandoff);
                        }
                        Batch loaded = dataset_.load_batch(plan_.batch(batch));
                        if constexpr (PinnableBatch<Batch>) {
                          if (pin) loaded = pin_memory(loaded);
                        } else {
                          (void)pin;  // only pinnable batches are pinned
                        }
                        slots_[slot].emplace(std::move(loaded));
                      }) {}

    // Returns false at the end of the epoch.
    bool advance() {
      current_.reset();
      if (prefetcher_.finished()) {
        return false;
      }
      const profiler::Range wait("wait for batch", trace::Category::kDataWait);
      prefetcher_.consume_next([this](std::size_t slot) {
        if (handoffs_[slot] != 0) profiler::flow_end(handoffs_[slot], trace::FlowKind::kHandoff);
        current_.emplace(std::move(*slots_[slot]));
        slots_[slot].reset();
      });
      return true;
    }

    Batch& current() { return *current_; }

   private:
    const Dataset<Batch>& dataset_;
    BatchPlan plan_;
    std::vector<std::optional<Batch>> slots_;
    std::vector<std::uint64_t> handoffs_;  // per slot: the flow id of the batch it holds
    std::optional<Batch> current_;
    OrderedPrefetcher prefetcher_;
  };

 public:
  // A move-only input iterator over one epoch; compare it with end() (a default sentinel).
  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;

    Iterator() = default;
    explicit Iterator(std::unique_ptr<Epoch> epoch) : epoch_(std::move(epoch)) {
      if (!epoch_->advance()) {
        epoch_.reset();
      }
    }

    Batch& operator*() const { return epoch_->current(); }
    Batch* operator->() const { return &epoch_->current(); }
    Iterator& operator++() {
      if (!epoch_->advance()) {
        epoch_.reset();
      }
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return epoch_ == nullptr; }

   private:
    std::unique_ptr<Epoch> epoch_;
  };

  // The loader reads `dataset` and does not own it: the dataset must outlive every epoch.
  DataLoader(const Dataset<Batch>& dataset, DataLoaderOptions options)
      : dataset_(dataset), options_(options) {
    BatchPlan::batch_count_for(dataset.size(), plan_options(options_));
    if (options_.prefetch_per_worker == 0) {
      throw std::invalid_argument("data loader: prefetch_per_worker must be at least 1");
    }
    if (options_.pin_memory && !PinnableBatch<Batch>) {
      throw std::invalid_argument(
          "data loader: pin_memory is set but these batches have no pin_memory overload");
    }
  }

  std::size_t batches_per_epoch() const {
    return BatchPlan::batch_count_for(dataset_.size(), plan_options(options_));
  }
  const DataLoaderOptions& options() const { return options_; }

  // The epoch the next begin() runs; each begin() moves on by one. Setting it replays an epoch
  // with the same shuffle, e.g. when resuming from a checkpoint.
  std::uint64_t epoch() const { return epoch_; }
  void set_epoch(std::uint64_t epoch) { epoch_ = epoch; }

  // Starts the next epoch and waits for its first batch.
  Iterator begin() { return Iterator(std::make_unique<Epoch>(dataset_, options_, epoch_++)); }
  std::default_sentinel_t end() const { return std::default_sentinel; }

 private:
  static BatchPlanOptions plan_options(const DataLoaderOptions& options) {
    return {options.batch_size, options.shuffle,     options.drop_last,
            options.seed,       options.shard_count, options.shard_index};
  }

  const Dataset<Batch>& dataset_;
  DataLoaderOptions options_;
  std::uint64_t epoch_ = 0;
};

}  // namespace tscope::engine
