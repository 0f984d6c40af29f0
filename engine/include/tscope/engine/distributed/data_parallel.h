#pragma once
// Data-parallel training in the manner of PyTorch's DistributedDataParallel: every rank holds the
// whole model, rank 0's parameters are broadcast at construction, and after each backward pass
// every gradient is the average over the ranks. Gradients are reduced in buckets (reverse
// registration order, about the order backward produces them); with overlap on, a bucket's
// asynchronous all-reduce starts the moment its last gradient is accumulated, so communication
// runs while backward computes the rest. finish() waits for every bucket before the optimizer.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tscope/engine/distributed/process_group.h"
#include "tscope/engine/nn/module.h"

namespace tscope::engine::distributed {

struct DataParallelOptions {
  // PyTorch's default bucket_cap_mb of 25.
  std::size_t bucket_bytes = std::size_t{25} << 20;
  // Off: every bucket is reduced in finish(), after backward, as the baseline overlap is
  // measured against.
  bool overlap = true;
};

// Parameter indices (into `parameters`) of each bucket: the parameters in reverse order, a bucket
// closed when the next parameter would take it past `bucket_bytes` (a bucket holds at least one).
std::vector<std::vector<std::size_t>> plan_gradient_buckets(const std::vector<Tensor>& parameters,
                                                            std::size_t bucket_bytes);

class DistributedDataParallel {
 public:
  // Broadcasts rank 0's parameters and installs the gradient hooks. The module and group must
  // outlive this object; its parameters must not be hooked by anything else.
  DistributedDataParallel(nn::Module& module, ProcessGroup& group,
                          DataParallelOptions options = {});
  // Removes the gradient hooks.
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  Tensor operator()(const Tensor& input) { return module_(input); }

  // Starts the reduction of every bucket not yet started (all of them with overlap off; a
  // parameter that got no gradient counts as a zero one), waits for all, and writes the averaged
  // gradients into the parameters' grad. Call after backward, before the optimizer step.
  void finish();

  std::size_t bucket_count() const { return buckets_.size(); }
  const DataParallelOptions& options() const { return options_; }

 private:
  struct Bucket {
    std::vector<std::size_t> parameters;
    std::vector<std::int64_t> offsets;  // of each parameter's elements in `flat`
    Tensor flat;                        // the gradients, contiguous, reduced in place
    std::size_t ready = 0;              // gradients accumulated this step
    Work reduction;
  };

  void on_gradient_ready(std::size_t parameter);
  // Starts, in bucket order, every bucket whose gradients are all in.
  void start_ready_buckets();
  void start(std::size_t bucket, bool fill_missing);

  nn::Module& module_;
  ProcessGroup& group_;
  DataParallelOptions options_;
  std::vector<Tensor> parameters_;
  std::vector<std::size_t> bucket_of_;  // per parameter
  std::vector<Bucket> buckets_;
  // Buckets start in index order on every rank, so their sequence numbers agree.
  std::size_t next_to_start_ = 0;
};

}  // namespace tscope::engine::distributed
