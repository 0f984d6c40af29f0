#include "tscope/engine/distributed/collective.h"

#include <string>

#include "tscope/engine/distributed/errors.h"

namespace tscope::engine::distributed {
namespace {

constexpr int kCollectiveCount = static_cast<int>(Collective::kBarrier) + 1;

// Literals, because range names and text arguments are recorded by address.
constexpr std::string_view kMpiSpanNames[kCollectiveCount] = {
    "mpi:all_reduce", "mpi:broadcast", "mpi:all_gather", "mpi:reduce_scatter", "mpi:barrier"};
constexpr std::string_view kNcclSpanNames[kCollectiveCount] = {
    "nccl:all_reduce", "nccl:broadcast", "nccl:all_gather", "nccl:reduce_scatter", "nccl:barrier"};
constexpr std::string_view kWaitSpanNames[kCollectiveCount] = {
    "wait:all_reduce", "wait:broadcast", "wait:all_gather", "wait:reduce_scatter", "wait:barrier"};
constexpr std::string_view kKinetoNames[kCollectiveCount] = {"allreduce", "broadcast", "allgather",
                                                             "reduce_scatter", "barrier"};
// Our own op names in messages: the API's spelling.
constexpr std::string_view kApiNames[kCollectiveCount] = {"all_reduce", "broadcast", "all_gather",
                                                          "reduce_scatter", "barrier"};

int index_of(Collective op) {
  return static_cast<int>(op);
}

}  // namespace

std::string_view backend_name(Backend backend) {
  return backend == Backend::kMpi ? "mpi" : "nccl";
}

std::string_view collective_span_name(Backend backend, Collective op) {
  return backend == Backend::kMpi ? kMpiSpanNames[index_of(op)] : kNcclSpanNames[index_of(op)];
}

std::string_view wait_span_name(Collective op) {
  return kWaitSpanNames[index_of(op)];
}

std::string_view kineto_collective_name(Collective op) {
  return kKinetoNames[index_of(op)];
}

std::string_view kineto_dtype_name(DType dtype) {
  return dtype == DType::kFloat32 ? "Float" : "Long";
}

CollectivePlanner::CollectivePlanner(Backend backend, int rank, int world_size)
    : backend_(backend), world_size_(world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size) {
    throw DistributedError("a process group needs 0 <= rank < world size, got rank " +
                           std::to_string(rank) + " of " + std::to_string(world_size));
  }
}

void CollectivePlanner::check_tensor(Collective op, const Tensor& tensor,
                                     std::string_view role) const {
  const std::string what = std::string(backend_name(backend_)) + " " +
                           std::string(kApiNames[index_of(op)]) + ": the " + std::string(role) +
                           " tensor";
  if (!tensor.defined()) throw DistributedError(what + " is undefined");
  const bool wants_cpu = backend_ == Backend::kMpi;
  if (tensor.device().is_cpu() != wants_cpu) {
    throw DistributedError(what + " is on " + tensor.device().to_string() + ", but the " +
                           std::string(backend_name(backend_)) + " backend takes " +
                           (wants_cpu ? "CPU" : "CUDA") + " tensors");
  }
  if (!tensor.is_contiguous()) {
    throw DistributedError(what + " is not contiguous; pass tensor.contiguous()");
  }
}

void CollectivePlanner::check_reduce(Collective op, ReduceOp reduce, const Tensor& tensor) const {
  if (reduce == ReduceOp::kAverage && tensor.dtype() != DType::kFloat32) {
    throw DistributedError(std::string(backend_name(backend_)) + " " +
                           std::string(kApiNames[index_of(op)]) +
                           ": an average needs float32 tensors, this one is " +
                           std::string(dtype_name(tensor.dtype())));
  }
}

CollectiveCall CollectivePlanner::numbered(CollectiveCall call, bool async) {
  // In-place collectives write their input; a barrier moves nothing.
  if (call.input.defined()) {
    call.in_elements = call.input.numel();
    call.out_elements = call.output.defined() ? call.output.numel() : call.in_elements;
    call.dtype = call.input.dtype();
  }
  call.in_bytes = call.in_elements * static_cast<std::int64_t>(element_size(call.dtype));
  call.async = async;
  call.sequence = ++sequence_;
  return call;
}

CollectiveCall CollectivePlanner::all_reduce(const Tensor& tensor, ReduceOp op, bool async) {
  check_tensor(Collective::kAllReduce, tensor, "reduced");
  check_reduce(Collective::kAllReduce, op, tensor);
  return numbered({.op = Collective::kAllReduce, .reduce = op, .input = tensor}, async);
}

CollectiveCall CollectivePlanner::broadcast(const Tensor& tensor, int root, bool async) {
  check_tensor(Collective::kBroadcast, tensor, "broadcast");
  if (root < 0 || root >= world_size_) {
    throw DistributedError(std::string(backend_name(backend_)) + " broadcast: root " +
                           std::to_string(root) + " is not a rank of a group of " +
                           std::to_string(world_size_));
  }
  return numbered({.op = Collective::kBroadcast, .input = tensor, .root = root}, async);
}

void CollectivePlanner::check_blocks(Collective op, const Tensor& whole,
                                     std::string_view whole_role, const Tensor& block) const {
  check_tensor(op, block, whole_role == "output" ? "input" : "output");
  check_tensor(op, whole, whole_role);
  if (whole.dtype() != block.dtype() || whole.numel() != block.numel() * world_size_) {
    throw DistributedError(
        std::string(backend_name(backend_)) + " " + std::string(kApiNames[index_of(op)]) +
        ": the " + std::string(whole_role) + " must hold " + std::to_string(world_size_) + " x " +
        std::to_string(block.numel()) + " " + std::string(dtype_name(block.dtype())) +
        " elements, it holds " + std::to_string(whole.numel()) + " " +
        std::string(dtype_name(whole.dtype())));
  }
}

CollectiveCall CollectivePlanner::all_gather(const Tensor& output, const Tensor& input,
                                             bool async) {
  check_blocks(Collective::kAllGather, output, "output", input);
  return numbered({.op = Collective::kAllGather, .input = input, .output = output}, async);
}

CollectiveCall CollectivePlanner::reduce_scatter(const Tensor& output, const Tensor& input,
                                                 ReduceOp op, bool async) {
  check_blocks(Collective::kReduceScatter, input, "input", output);
  check_reduce(Collective::kReduceScatter, op, input);
  return numbered(
      {.op = Collective::kReduceScatter, .reduce = op, .input = input, .output = output}, async);
}

CollectiveCall CollectivePlanner::barrier(bool async) {
  return numbered({.op = Collective::kBarrier}, async);
}

}  // namespace tscope::engine::distributed
