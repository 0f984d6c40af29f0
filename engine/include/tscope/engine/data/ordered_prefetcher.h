#pragma once
// The threading core of the data loader: worker threads produce numbered items into a bounded
// ring of slots, and the consumer receives them strictly in order whatever the worker timing.

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tscope::engine {

class OrderedPrefetcher {
 public:
  // Called as produce(item, slot) on a worker thread (or on the consumer's thread when
  // worker_count is 0); it must leave item `item` in the caller-owned storage for `slot`.
  using Produce = std::function<void(std::size_t item, std::size_t slot)>;
  // Called as take(slot) on the consumer's thread to move the finished item out of its slot.
  using Take = std::function<void(std::size_t slot)>;

  // At most `capacity` items are produced ahead of the consumer; slots are numbered
  // 0..capacity-1 (one slot without workers). Throws std::invalid_argument when capacity is zero.
  OrderedPrefetcher(std::size_t item_count, std::size_t worker_count, std::size_t capacity,
                    Produce produce);
  OrderedPrefetcher(const OrderedPrefetcher&) = delete;
  OrderedPrefetcher& operator=(const OrderedPrefetcher&) = delete;
  // Stops the workers and joins them; an item being produced is finished first.
  ~OrderedPrefetcher();

  bool finished() const { return delivered_ == item_count_; }

  // Blocks until the next item in order is ready and hands its slot to `take`. An exception
  // thrown while producing that item is rethrown here instead, in the item's place.
  void consume_next(const Take& take);

 private:
  void work();
  void stop();

  const std::size_t item_count_;
  const std::size_t capacity_;
  const std::size_t slot_count_;
  const Produce produce_;

  std::mutex mutex_;
  std::condition_variable slot_free_;
  std::condition_variable item_ready_;
  std::size_t next_to_claim_ = 0;
  std::size_t delivered_ = 0;
  std::vector<bool> ready_;                   // per slot
  std::vector<std::exception_ptr> failures_;  // per slot
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace tscope::engine
