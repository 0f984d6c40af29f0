#include "thread_buffers.h"

#include <algorithm>

namespace tscope::profiler {

ThreadBufferRegistry& ThreadBufferRegistry::instance() {
  // Never destroyed: threads may record while static objects are torn down at exit.
  static ThreadBufferRegistry* const registry = new ThreadBufferRegistry();
  return *registry;
}

void ThreadBufferRegistry::add(std::shared_ptr<ThreadBuffer> buffer) {
  std::lock_guard lock(mutex_);
  buffers_.push_back(std::move(buffer));
}

std::vector<std::shared_ptr<ThreadBuffer>> ThreadBufferRegistry::snapshot() const {
  std::lock_guard lock(mutex_);
  return buffers_;
}

void ThreadBufferRegistry::remove(const ThreadBuffer* buffer) {
  std::lock_guard lock(mutex_);
  std::erase_if(buffers_, [buffer](const auto& entry) { return entry.get() == buffer; });
}

}  // namespace tscope::profiler
