#include "tscope/engine/transfer.h"

#include "autograd/graph.h"
#include "cross_device.h"
#include "current_op.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/factories.h"

namespace tscope::engine {

Tensor to_device(const Tensor& x, Device device, bool non_blocking) {
  if (x.device() == device) return x;
  if (!device.is_cpu()) require_cuda_device(device);
  const Tensor source = x.detach().contiguous();
  Tensor out;
  {
    const CurrentOpScope scope("to");
    out = empty(x.shape(), {.dtype = x.dtype(), .device = device});
    backend::copy_between_devices(out, source, non_blocking);
  }
  record_if_needed(out, "ToDeviceBackward", {x},
                   [from = x.device()](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{to_device(grad, from)};
                   });
  return out;
}

Tensor Tensor::to(Device device, bool non_blocking) const {
  return to_device(*this, device, non_blocking);
}

void to_device(nn::Module& module, Device device) {
  for (const Tensor& parameter : module.parameters()) {
    if (parameter.device() == device) continue;
    const Tensor moved = to_device(parameter.detach(), device);
    // The module and its layers hold handles to this TensorImpl: changing it moves them all.
    TensorImpl& impl = *parameter.impl();
    impl.storage = moved.storage();
    impl.strides = moved.strides();
    impl.offset = moved.offset();
    impl.grad.reset();
  }
}

LabeledBatch to_device(const LabeledBatch& batch, Device device, bool non_blocking) {
  return {to_device(batch.inputs, device, non_blocking),
          to_device(batch.targets, device, non_blocking)};
}

Tensor pin_memory(const Tensor& x) {
  if (!x.device().is_cpu()) {
    throw EngineError("pin_memory: needs a cpu tensor, this one is on " + x.device().to_string());
  }
  if (is_pinned(x)) return x;
  require_cuda_device(Device::cuda(0));
  Tensor pinned = empty(x.shape(), {.dtype = x.dtype()}, backend::pinned_host_allocator());
  pinned.copy_(x.detach());
  return pinned;
}

LabeledBatch pin_memory(const LabeledBatch& batch) {
  return {pin_memory(batch.inputs), pin_memory(batch.targets)};
}

bool is_pinned(const Tensor& x) {
  return x.defined() && x.device().is_cpu() && backend::is_pinned_address(x.storage()->data());
}

}  // namespace tscope::engine
