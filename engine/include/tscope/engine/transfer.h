#pragma once
// Moving tensors and modules between devices, and page-locked (pinned) host memory, from which
// host-to-device copies run asynchronously on a side stream and overlap compute.

#include "tscope/engine/data/labeled_batch.h"
#include "tscope/engine/device.h"
#include "tscope/engine/nn/module.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

// A copy of `x` on `device` (x itself when already there), recorded for autograd: the gradient
// flows back to x's device. With `non_blocking` and a pinned source, a host-to-device copy is
// queued on the device's copy stream and the compute stream waits for it on the device, not on
// the host.
Tensor to_device(const Tensor& x, Device device, bool non_blocking = false);

// Moves every parameter of `module` (and of its children) to `device` in place: handles to the
// parameters that the module and its layers hold see the new device. Create optimizers after.
void to_device(nn::Module& module, Device device);

// Inputs and targets moved as to_device moves one tensor.
LabeledBatch to_device(const LabeledBatch& batch, Device device, bool non_blocking = false);

// A host copy of `x` in pinned memory; throws CudaUnavailable when no CUDA device answers.
Tensor pin_memory(const Tensor& x);
LabeledBatch pin_memory(const LabeledBatch& batch);
bool is_pinned(const Tensor& x);

}  // namespace tscope::engine
