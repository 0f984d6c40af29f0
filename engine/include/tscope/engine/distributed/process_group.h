#pragma once
// A group of ranks that run collectives on tensors together, as torch.distributed's process
// groups: rank and world size, and all_reduce, broadcast, all_gather, reduce_scatter and barrier,
// each blocking or asynchronous (a Work handle to wait on). Two backends: MPI (CPU tensors,
// float32 and int64) and NCCL (CUDA tensors, on the group's own communication stream).
//
// Every collective is recorded as a communication range in the shape of Kineto's
// record_param_comms (docs/distributed.md), with its sequence number in the group; creating a
// group writes the rank's identity (rank, world_size, local_rank, host, backend, run_id) into the
// trace metadata through profiler::set_trace_metadata.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tscope/engine/distributed/collective.h"
#include "tscope/engine/distributed/work.h"

namespace tscope::engine::distributed {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  // The rank among the group's ranks on this host.
  int local_rank() const { return local_rank_; }
  Backend backend() const { return backend_; }
  // Where the group's tensors must live: the CPU for MPI, the group's GPU for NCCL.
  virtual Device device() const = 0;
  // "0" for the world group (torch.distributed's naming), static for the process's lifetime.
  std::string_view name() const { return name_; }
  // The id every rank of this job shares, made by rank 0 when the group was created.
  const std::string& run_id() const { return run_id_; }

  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::kSum);
  Work all_reduce_async(const Tensor& tensor, ReduceOp op = ReduceOp::kSum,
                        std::optional<std::int64_t> bucket = std::nullopt);
  void broadcast(const Tensor& tensor, int root);
  Work broadcast_async(const Tensor& tensor, int root);
  void all_gather(const Tensor& output, const Tensor& input);
  Work all_gather_async(const Tensor& output, const Tensor& input);
  void reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::kSum);
  Work reduce_scatter_async(const Tensor& output, const Tensor& input,
                            ReduceOp op = ReduceOp::kSum);
  void barrier();
  Work barrier_async();

  // The sequence number of the group's last collective, 0 before the first.
  std::int64_t last_sequence() const { return planner_.last_sequence(); }

 protected:
  ProcessGroup(Backend backend, int rank, int world_size, int local_rank);
  // Agrees on the run id (rank 0's, broadcast) and publishes the rank's trace metadata; the
  // backend calls it once it can run collectives.
  void join_run();
  // Starts the checked, numbered collective; the span recording it is the backend's.
  virtual Work launch(CollectiveCall call) = 0;

 private:
  Backend backend_;
  int rank_;
  int world_size_;
  int local_rank_;
  std::string_view name_;
  std::string run_id_;
  CollectivePlanner planner_;
};

// The world group over MPI (OpenMPI). The first call initialises MPI (MPI_THREAD_SERIALIZED) on
// the process's communication thread ("mpi comm"), the only thread that calls MPI afterwards;
// MPI is finalised at exit. Started by mpirun, or alone as a world of one. Throws
// BackendUnavailable in a build without MPI, DistributedError when MPI fails.
std::unique_ptr<ProcessGroup> make_mpi_process_group();

// An NCCL group over the same ranks as `bootstrap` (which carries NCCL's unique id from rank 0 to
// the others), on CUDA device `device`. Throws BackendUnavailable in a build without NCCL or when
// libnccl.so.2 cannot be loaded, CudaUnavailable without a GPU, DistributedError when NCCL fails.
std::unique_ptr<ProcessGroup> make_nccl_process_group(ProcessGroup& bootstrap, Device device);
// An NCCL world of one on `device`, with no bootstrap group (a single GPU's checks).
std::unique_ptr<ProcessGroup> make_nccl_process_group(Device device);

}  // namespace tscope::engine::distributed
