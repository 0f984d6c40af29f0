#pragma once
// What one collective is, independent of the backend that runs it: its kind, tensors, sizes and
// its sequence number in its group, checked and numbered by the group's CollectivePlanner before
// any backend sees it. The names are Kineto's, so our traces and PyTorch's match the same way.

#include <cstdint>
#include <optional>
#include <string_view>

#include "tscope/engine/device.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine::distributed {

enum class Backend : std::uint8_t { kMpi, kNccl };
enum class Collective : std::uint8_t {
  kAllReduce,
  kBroadcast,
  kAllGather,
  kReduceScatter,
  kBarrier
};
enum class ReduceOp : std::uint8_t { kSum, kAverage };

// "mpi", "nccl": the trace's `backend` metadata and the prefix of collective span names.
std::string_view backend_name(Backend backend);
// The span name, "<backend>:<op>" with Kineto's op spelling: "mpi:all_reduce", "nccl:broadcast".
std::string_view collective_span_name(Backend backend, Collective op);
// The span name of waiting for an asynchronous collective: "wait:all_reduce", ...
std::string_view wait_span_name(Collective op);
// record_param_comms' "Collective name": "allreduce", "broadcast", "allgather", ...
std::string_view kineto_collective_name(Collective op);
// record_param_comms' "dtype": "Float", "Long".
std::string_view kineto_dtype_name(DType dtype);

struct CollectiveCall {
  Collective op = Collective::kBarrier;
  ReduceOp reduce = ReduceOp::kSum;
  // all_reduce and broadcast work in place on `input`; all_gather and reduce_scatter read
  // `input` and write `output`; a barrier has neither.
  Tensor input{};
  Tensor output{};
  int root = 0;
  std::int64_t sequence = 0;  // 1 for the group's first collective, the same on every rank
  std::int64_t in_elements = 0;
  std::int64_t out_elements = 0;
  DType dtype = DType::kFloat32;
  std::int64_t in_bytes = 0;
  bool async = false;
  std::optional<std::int64_t> bucket{};  // the data-parallel gradient bucket it reduces
};

// Checks a collective's arguments against its group (tensor device, dtype, contiguity, sizes,
// root) and numbers it. Throws DistributedError before anything is sent, so a bad call never
// leaves the other ranks waiting on a half-started collective. Every rank must plan the same
// collectives in the same order; their sequence numbers then agree.
class CollectivePlanner {
 public:
  CollectivePlanner(Backend backend, int rank, int world_size);

  CollectiveCall all_reduce(const Tensor& tensor, ReduceOp op, bool async);
  CollectiveCall broadcast(const Tensor& tensor, int root, bool async);
  // `output` holds world_size copies of `input`'s elements, rank 0's first.
  CollectiveCall all_gather(const Tensor& output, const Tensor& input, bool async);
  // `input` holds world_size blocks of `output`'s size; rank r receives the reduced block r.
  CollectiveCall reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op, bool async);
  CollectiveCall barrier(bool async);

  // The sequence number of the last planned collective, 0 before the first.
  std::int64_t last_sequence() const { return sequence_; }

 private:
  void check_tensor(Collective op, const Tensor& tensor, std::string_view role) const;
  void check_reduce(Collective op, ReduceOp reduce, const Tensor& tensor) const;
  // `whole` (the role it plays: "input" or "output") holds world_size blocks like `block`.
  void check_blocks(Collective op, const Tensor& whole, std::string_view whole_role,
                    const Tensor& block) const;
  CollectiveCall numbered(CollectiveCall call, bool async);

  Backend backend_;
  int world_size_;
  std::int64_t sequence_ = 0;
};

}  // namespace tscope::engine::distributed
