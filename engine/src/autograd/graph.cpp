#include "autograd/graph.h"

#include <unordered_map>

#include "autograd/function_node.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {

void record_if_needed(Tensor& output, std::string_view name, const std::vector<Tensor>& inputs,
                      BackwardFn backward) {
  if (!GradMode::is_enabled()) return;
  bool any_requires_grad = false;
  for (const Tensor& input : inputs) {
    any_requires_grad = any_requires_grad || (input.defined() && input.requires_grad());
  }
  if (!any_requires_grad) return;
  std::vector<std::shared_ptr<Node>> next_nodes;
  next_nodes.reserve(inputs.size());
  for (const Tensor& input : inputs) {
    if (!input.defined() || !input.requires_grad()) {
      next_nodes.push_back(nullptr);
    } else if (input.grad_fn()) {
      next_nodes.push_back(input.grad_fn());
    } else {
      next_nodes.push_back(grad_accumulator(input));
    }
  }
  output.impl()->requires_grad = true;
  output.impl()->grad_fn =
      std::make_shared<FunctionNode>(name, std::move(next_nodes), std::move(backward));
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  std::shared_ptr<Node> existing = leaf.impl()->grad_accumulator.lock();
  if (existing) return existing;
  auto created = std::make_shared<AccumulateGrad>(leaf.impl());
  leaf.impl()->grad_accumulator = created;
  return created;
}

void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  if (!root.requires_grad()) {
    throw EngineError(
        "backward() on a tensor that does not require grad: no input of its computation "
        "requires grad, or it was computed under NoGradGuard");
  }
  if (gradient.shape() != root.shape()) {
    throw EngineError("backward() was given a gradient of shape " +
                      shape_to_string(gradient.shape()) + " for a tensor of shape " +
                      shape_to_string(root.shape()));
  }
  const NoGradGuard no_grad;
  const std::shared_ptr<Node> root_node = root.grad_fn() ? root.grad_fn() : grad_accumulator(root);

  // Kahn's algorithm: a node runs once every node that feeds it a gradient has run.
  std::unordered_map<Node*, int> waiting_inputs;
  std::vector<Node*> to_visit{root_node.get()};
  waiting_inputs[root_node.get()] = 0;
  while (!to_visit.empty()) {
    Node* node = to_visit.back();
    to_visit.pop_back();
    for (const auto& next : node->next_nodes()) {
      if (!next) continue;
      const auto [entry, inserted] = waiting_inputs.try_emplace(next.get(), 0);
      ++entry->second;
      if (inserted) to_visit.push_back(next.get());
    }
  }

  std::unordered_map<Node*, Tensor> pending_grads{{root_node.get(), gradient}};
  std::vector<Node*> ready{root_node.get()};
  while (!ready.empty()) {
    Node* node = ready.back();
    ready.pop_back();
    const Tensor grad = std::move(pending_grads[node]);
    pending_grads.erase(node);
    std::vector<Tensor> input_grads;
    if (grad.defined()) input_grads = node->apply(grad);
    if (!retain_graph) node->release();
    const auto& next_nodes = node->next_nodes();
    for (std::size_t i = 0; i < next_nodes.size(); ++i) {
      Node* next = next_nodes[i].get();
      if (next == nullptr) continue;
      if (i < input_grads.size() && input_grads[i].defined()) {
        Tensor& slot = pending_grads[next];
        slot = slot.defined() ? add(slot, input_grads[i]) : input_grads[i];
      }
      if (--waiting_inputs[next] == 0) ready.push_back(next);
    }
  }
}

}  // namespace tscope::engine
