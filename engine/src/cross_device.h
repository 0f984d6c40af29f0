#pragma once
// What moving data between devices needs from a device backend: the CUDA backend implements it
// (cuda/transfer.cpp), and a build without CUDA answers that no device is there
// (cuda_unavailable.cpp).

#include "tscope/engine/allocator.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine::backend {

// Copies dense `source` into dense `destination` of the same shape and dtype on another device.
// With `non_blocking`, a pinned host source is copied on the copy stream and stays alive until
// that copy has finished.
void copy_between_devices(const Tensor& destination, const Tensor& source, bool non_blocking);

// Page-locked host memory.
Allocator& pinned_host_allocator();
bool is_pinned_address(const void* address);

}  // namespace tscope::engine::backend
