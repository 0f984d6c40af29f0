#include "tscope/engine/distributed/data_parallel.h"

#include <string>

#include "tscope/engine/autograd.h"
#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::distributed {

std::vector<std::vector<std::size_t>> plan_gradient_buckets(const std::vector<Tensor>& parameters,
                                                            std::size_t bucket_bytes) {
  std::vector<std::vector<std::size_t>> buckets;
  std::size_t filled = 0;
  for (std::size_t index = parameters.size(); index-- > 0;) {
    const auto bytes = static_cast<std::size_t>(parameters[index].numel()) *
                       element_size(parameters[index].dtype());
    if (buckets.empty() || (filled > 0 && filled + bytes > bucket_bytes)) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(index);
    filled += bytes;
  }
  return buckets;
}

DistributedDataParallel::DistributedDataParallel(nn::Module& module, ProcessGroup& group,
                                                 DataParallelOptions options)
    : module_(module), group_(group), options_(options), parameters_(module.parameters()) {
  if (options_.bucket_bytes == 0) throw DistributedError("data parallel: bucket size must be > 0");
  for (const Tensor& parameter : parameters_) {
    if (parameter.device() != group_.device()) {
      throw DistributedError("data parallel: a parameter is on " + parameter.device().to_string() +
                             " but the " + std::string(backend_name(group_.backend())) +
                             " group works on " + group_.device().to_string());
    }
    group_.broadcast(parameter.detach(), 0);
  }
  bucket_of_.resize(parameters_.size());
  for (auto& members : plan_gradient_buckets(parameters_, options_.bucket_bytes)) {
    Bucket bucket;
    std::int64_t elements = 0;
    for (const std::size_t parameter : members) {
      bucket_of_[parameter] = buckets_.size();
      bucket.offsets.push_back(elements);
      elements += parameters_[parameter].numel();
    }
    bucket.parameters = std::move(members);
    bucket.flat = zeros({elements}, {.device = group_.device()});
    buckets_.push_back(std::move(bucket));
  }
  for (std::size_t index = 0; index < parameters_.size(); ++index) {
    parameters_[index].set_post_accumulate_grad_hook(
        [this, index](const Tensor&) { on_gradient_ready(index); });
  }
}

DistributedDataParallel::~DistributedDataParallel() {
  for (const Tensor& parameter : parameters_)
    parameter.set_post_accumulate_grad_hook(nullptr);
  for (Bucket& bucket : buckets_) {
    try {
      bucket.reduction.wait();
    } catch (...) {
      // A failed reduction was reported by finish(), or the step is being abandoned anyway.
    }
  }
}

void DistributedDataParallel::on_gradient_ready(std::size_t parameter) {
  Bucket& bucket = buckets_[bucket_of_[parameter]];
  ++bucket.ready;
  if (options_.overlap && bucket.ready == bucket.parameters.size()) start_ready_buckets();
}

void DistributedDataParallel::start_ready_buckets() {
  while (next_to_start_ < buckets_.size() &&
         buckets_[next_to_start_].ready == buckets_[next_to_start_].parameters.size()) {
    start(next_to_start_++, false);
  }
}

void DistributedDataParallel::start(std::size_t index, bool fill_missing) {
  const NoGradGuard no_grad;
  Bucket& bucket = buckets_[index];
  for (std::size_t i = 0; i < bucket.parameters.size(); ++i) {
    const Tensor& parameter = parameters_[bucket.parameters[i]];
    Tensor slot = bucket.flat.narrow(0, bucket.offsets[i], parameter.numel());
    const Tensor grad = parameter.grad();
    if (grad.defined()) {
      slot.copy_(grad.reshape({parameter.numel()}));
    } else if (fill_missing) {
      slot.zero_();
    }
  }
  bucket.reduction =
      group_.all_reduce_async(bucket.flat, ReduceOp::kAverage, static_cast<std::int64_t>(index));
}

void DistributedDataParallel::finish() {
  while (next_to_start_ < buckets_.size())
    start(next_to_start_++, true);
  const NoGradGuard no_grad;
  for (Bucket& bucket : buckets_) {
    bucket.reduction.wait();
    bucket.reduction = Work();
    bucket.ready = 0;
    for (std::size_t i = 0; i < bucket.parameters.size(); ++i) {
      const Tensor& parameter = parameters_[bucket.parameters[i]];
      const Tensor averaged =
          bucket.flat.narrow(0, bucket.offsets[i], parameter.numel()).view(parameter.shape());
      if (parameter.grad().defined()) {
        parameter.grad().copy_(averaged);
      } else {
        parameter.set_grad(averaged.clone());
      }
    }
  }
  next_to_start_ = 0;
}

}  // namespace tscope::engine::distributed
