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
  call.async = async;
  call.sequence = ++sequence_;
  call.in_bytes = call.in_elements * static_cast<std::int64_t>(element_size(call.dtype));
  return call;
}

CollectiveCall CollectivePlanner::all_reduce(const Tensor& tensor, ReduceOp op, bool async) {
  check_tensor(Collective::kAllReduce, tensor, "reduced");
  check_reduce(Collective::kAllReduce, op, tensor);
  return numbered({.op = Collective::kAllReduce,
                   .reduce = op,
                   .input = tensor,
                   .in_elements = tensor.numel(),
                   .out_elements = tensor.numel(),
                   .dtype = tensor.dtype()},
                  async);
}

CollectiveCall CollectivePlanner::broadcast(const Tensor& tensor, int root, bool async) {
  check_tensor(Collective::kBroadcast, tensor, "broadcast");
  if (root < 0 || root >= world_size_) {
    throw DistributedError(std::string(backend_name(backend_)) + " broadcast: root " +
                           std::to_string(root) + " is not a rank of a group of " +
                           std::to_string(world_size_));
  }
  return numbered({.op = Collective::kBroadcast,
                   .input = tensor,
                   .root = root,
                   .in_elements = tensor.numel(),
                   .out_elements = tensor.numel(),
                   .dtype = tensor.dtype()},
                  async);
}

CollectiveCall CollectivePlanner::all_gather(const Tensor& output, const Tensor& input,
                                             bool async) {
  check_tensor(Collective::kAllGather, input, "input");
  check_tensor(Collective::kAllGather, output, "output");
  if (output.dtype() != input.dtype() || output.numel() != input.numel() * world_size_) {
    throw DistributedError(
        std::string(backend_name(backend_)) + " all_gather: the output must hold " +
        std::to_string(world_size_) + " x " + std::to_string(input.numel()) + " " +
        std::string(dtype_name(input.dtype())) + " elements, it holds " +
        std::to_string(output.numel()) + " " + std::string(dtype_name(output.dtype())));
  }
  return numbered({.op = Collective::kAllGather,
                   .input = input,
                   .output = output,
                   .in_elements = input.numel(),
                   .out_elements = output.numel(),
                   .dtype = input.dtype()},
                  async);
}

CollectiveCall CollectivePlanner::reduce_scatter(const Tensor& output, const Tensor& input,
                                                 ReduceOp op, bool async) {
  check_tensor(Collective::kReduceScatter, input, "input");
  check_tensor(Collective::kReduceScatter, output, "output");
  check_reduce(Collective::kReduceScatter, op, input);
  if (output.dtype() != input.dtype() || input.numel() != output.numel() * world_size_) {
    throw DistributedError(
        std::string(backend_name(backend_)) + " reduce_scatter: the input must hold " +
        std::to_string(world_size_) + " x " + std::to_string(output.numel()) + " " +
        std::string(dtype_name(output.dtype())) + " elements, it holds " +
        std::to_string(input.numel()) + " " + std::string(dtype_name(input.dtype())));
  }
  return numbered({.op = Collective::kReduceScatter,
                   .reduce = op,
                   .input = input,
                   .output = output,
                   .in_elements = input.numel(),
                   .out_elements = output.numel(),
                   .dtype = input.dtype()},
                  async);
}

CollectiveCall CollectivePlanner::barrier(bool async) {
  return numbered({.op = Collective::kBarrier}, async);
}

}  // namespace tscope::engine::distributed
