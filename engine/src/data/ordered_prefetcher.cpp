#include "tscope/engine/data/ordered_prefetcher.h"

#include <pthread.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace tscope::engine {

OrderedPrefetcher::OrderedPrefetcher(std::size_t item_count, std::size_t worker_count,
                                     std::size_t capacity, Produce produce)
    : item_count_(item_count),
      capacity_(capacity),
      slot_count_(worker_count == 0 ? 1 : capacity),
      produce_(std::move(produce)),
      ready_(slot_count_, false),
      failures_(slot_count_) {
  if (capacity == 0) {
    throw std::invalid_argument("data loader: prefetch capacity must be at least 1");
  }
  workers_.reserve(worker_count);
  try {
    for (std::size_t i = 0; i < worker_count; ++i) {
      workers_.emplace_back([this, i] {
        // Traces and system tools name the thread's track by it (at most 15 characters).
        pthread_setname_np(pthread_self(), ("loader " + std::to_string(i)).c_str());
        work();
      });
    }
  } catch (...) {
    stop();
    throw;
  }
}

OrderedPrefetcher::~OrderedPrefetcher() {
  stop();
}

void OrderedPrefetcher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  slot_free_.notify_all();
  for (auto& worker : workers_) {
    worker.join();
  }
  workers_.clear();
}

void OrderedPrefetcher::work() {
  for (;;) {
    std::size_t item = 0;
    {
      std::unique_lock lock(mutex_);
      // An item may only be claimed when its slot's previous occupant has been consumed,
      // which both bounds memory and keeps every slot written by one thread at a time.
      slot_free_.wait(lock, [this] {
        return stopping_ || next_to_claim_ >= item_count_ ||
               next_to_claim_ < delivered_ + capacity_;
      });
      if (stopping_ || next_to_claim_ >= item_count_) {
        return;
      }
      item = next_to_claim_++;
    }
    const std::size_t slot = item % slot_count_;
    std::exception_ptr failure;
    try {
      produce_(item, slot);
    } catch (...) {
      failure = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      failures_[slot] = std::move(failure);
      ready_[slot] = true;
    }
    item_ready_.notify_all();
  }
}

void OrderedPrefetcher::consume_next(const Take& take) {
  if (finished()) {
    throw std::out_of_range("data loader: the epoch has no more batches");
  }
  if (workers_.empty()) {
    const std::size_t item = delivered_++;
    produce_(item, 0);
    take(0);
    return;
  }
  const std::size_t slot = delivered_ % slot_count_;
  std::exception_ptr failure;
  {
    std::unique_lock lock(mutex_);
    item_ready_.wait(lock, [this, slot] { return ready_[slot]; });
    failure = std::exchange(failures_[slot], nullptr);
  }
  // The slot is the consumer's alone until delivered_ moves past it, so take runs unlocked.
  try {
    if (!failure) {
      take(slot);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    ready_[slot] = false;
    ++delivered_;
  }
  slot_free_.notify_all();
  if (failure) {
    std::rethrow_exception(failure);
  }
}

}  // namespace tscope::engine
