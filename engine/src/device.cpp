#include "tscope/engine/device.h"

namespace tscope::engine {

std::string Device::to_string() const {
  if (type_ == DeviceType::kCpu) return "cpu";
  return "cuda:" + std::to_string(index_);
}

}  // namespace tscope::engine
