#pragma once
// A block of device memory shared by a tensor and all its views; returned to its allocator when
// the last of them goes away.

#include <cstddef>

#include "tscope/engine/allocator.h"
#include "tscope/engine/device.h"

namespace tscope::engine {

class Storage {
 public:
  Storage(std::size_t bytes, Allocator& allocator);
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  Device device() const { return allocator_.device(); }

 private:
  Allocator& allocator_;
  std::size_t bytes_;
  void* data_;
};

}  // namespace tscope::engine
