#include <map>
#include <mutex>
#include <utility>

#include "tscope/engine/allocator.h"
#include "tscope/engine/cpu_allocator.h"
#include "tscope/engine/cuda.h"

namespace tscope::engine {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::pair<DeviceType, int>, Allocator*> allocators;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

Allocator& allocator_for(Device device) {
  if (device.is_cpu()) return cpu_allocator();
  {
    Registry& table = registry();
    std::lock_guard lock(table.mutex);
    const auto found = table.allocators.find({device.type(), device.index()});
    if (found != table.allocators.end()) return *found->second;
  }
  // A registered allocator takes precedence; otherwise CUDA devices use the backend's caching
  // allocator, which says why when no device answers.
  return cuda_allocator(device.index());
}

void register_allocator(Device device, Allocator& allocator) {
  Registry& table = registry();
  std::lock_guard lock(table.mutex);
  table.allocators[{device.type(), device.index()}] = &allocator;
}

}  // namespace tscope::engine
