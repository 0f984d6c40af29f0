#pragma once
// How ops join the autograd graph: the backward function they provide and the call that records
// it on their output when grad mode is on and an input requires grad.

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "tscope/engine/node.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

// Which inputs of the op need a gradient, in input order.
using GradNeeds = std::vector<bool>;
// Returns one gradient per input; an entry may be left undefined where the need is false.
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad, const GradNeeds& needs)>;

// Makes `output` the result of a node named `name` over `inputs` when grad mode is on and any
// input requires grad; otherwise does nothing.
void record_if_needed(Tensor& output, std::string_view name, const std::vector<Tensor>& inputs,
                      BackwardFn backward);

// The node that accumulates gradients into `leaf` (created on first use, shared by all graphs).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph);

}  // namespace tscope::engine
