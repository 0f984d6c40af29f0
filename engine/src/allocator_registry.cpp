#include <map>
#include <mutex>
#include <utility>

#include "tscope/engine/allocator.h"
#include "tscope/engine/cpu_allocator.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/errors.h"

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
  if (device.type() == DeviceType::kCuda) return cuda_allocator(device.index());
  Registry& table = registry();
  std::lock_guard lock(table.mutex);
  const auto found = table.allocators.find({device.type(), device.index()});
  if (found == table.allocators.end()) {
    throw EngineError("no allocator registered for device " + device.to_string() +
                      " (is its backend built and initialised?)");
  }
  return *found->second;
}

void register_allocator(Device device, Allocator& allocator) {
  Registry& table = registry();
  std::lock_guard lock(table.mutex);
  table.allocators[{device.type(), device.index()}] = &allocator;
}

}  // namespace tscope::engine
