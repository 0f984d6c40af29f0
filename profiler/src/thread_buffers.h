#pragma once
// The process-wide list of per-thread buffers. A thread registers its buffer once, on its first
// record (the only lock on the record path, taken once per thread); the writer thread takes a
// snapshot of the list each cycle and drops buffers whose thread has exited once drained.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "event_ring.h"

namespace tscope::profiler {

struct ThreadBuffer {
  ThreadBuffer(std::size_t capacity_bytes, std::int64_t id, std::string name)
      : ring(capacity_bytes), thread_id(id), thread_name(std::move(name)) {}

  EventRing ring;
  // Events the owning thread could not append; only that thread writes it.
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<bool> retired{false};  // the owning thread has exited
  const std::int64_t thread_id;
  const std::string thread_name;
};

class ThreadBufferRegistry {
 public:
  static ThreadBufferRegistry& instance();

  void add(std::shared_ptr<ThreadBuffer> buffer);
  std::vector<std::shared_ptr<ThreadBuffer>> snapshot() const;
  void remove(const ThreadBuffer* buffer);

  // The capacity a thread's buffer gets when it registers; set by the session being started.
  std::size_t capacity_for_new_buffers() const {
    return capacity_for_new_buffers_.load(std::memory_order_relaxed);
  }
  void set_capacity_for_new_buffers(std::size_t bytes) {
    capacity_for_new_buffers_.store(bytes, std::memory_order_relaxed);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers_;
  std::atomic<std::size_t> capacity_for_new_buffers_{std::size_t{4} << 20};
};

}  // namespace tscope::profiler
