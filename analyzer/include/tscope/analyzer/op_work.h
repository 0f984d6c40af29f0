#pragma once
// The arithmetic and memory traffic of one operator: what our engine records (flops, bytes read
// and written), or, for PyTorch's matrix products and convolution gradients, what their input
// shapes imply (Kineto records shapes, not flops, unless the profiler ran with_flops).

#include <cstdint>
#include <optional>
#include <string_view>

#include "tscope/trace/trace.h"

namespace tscope::analyzer {

struct OpWork {
  double flops = 0;
  double bytes = 0;  // read + written
};

// Empty when the op records no flops and its shapes do not determine them: a forward
// convolution, whose output size depends on the stride and padding that traces do not record,
// or any op that is not a matrix product.
std::optional<OpWork> op_work(std::string_view op_name, const trace::OpView& op);

}  // namespace tscope::analyzer
