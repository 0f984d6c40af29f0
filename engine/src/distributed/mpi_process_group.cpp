// The MPI backend: every collective runs on the process's MPI thread (mpi_comm_thread.h) over a
// duplicate of MPI_COMM_WORLD, recorded there as the range that covers the MPI call itself.

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <memory>
#include <string>

#include "distributed/collective_range.h"
#include "distributed/mpi_comm_thread.h"
#include "distributed/work_state.h"
#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/distributed/process_group.h"

namespace tscope::engine::distributed {
namespace {

MPI_Datatype mpi_type(DType dtype) {
  return dtype == DType::kFloat32 ? MPI_FLOAT : MPI_INT64_T;
}

int mpi_count(std::int64_t elements, const CollectiveCall& call) {
  if (elements > INT_MAX) {
    throw DistributedError("mpi " + std::string(kineto_collective_name(call.op)) + ": " +
                           std::to_string(elements) + " elements exceed MPI's int count");
  }
  return static_cast<int>(elements);
}

void divide_by(const Tensor& tensor, int world_size) {
  float* values = tensor.data<float>();
  const float scale = 1.0f / static_cast<float>(world_size);
  for (std::int64_t i = 0; i < tensor.numel(); ++i)
    values[i] *= scale;
}

struct MpiRanks {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  MPI_Comm comm = MPI_COMM_NULL;
};

// Rank, world size and the rank on this host, on the MPI thread. mpirun tells the local rank
// in OMPI_COMM_WORLD_LOCAL_RANK; elsewhere the ranks sharing memory with this one count.
MpiRanks query_ranks(MpiCommThread& thread) {
  MpiRanks ranks;
  thread.run([&ranks] {
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &ranks.comm), "MPI_Comm_dup");
    check_mpi(MPI_Comm_set_errhandler(ranks.comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check_mpi(MPI_Comm_rank(ranks.comm, &ranks.rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(ranks.comm, &ranks.world_size), "MPI_Comm_size");
    if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"); local != nullptr) {
      ranks.local_rank = std::atoi(local);
      return;
    }
    MPI_Comm host_comm = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(ranks.comm, MPI_COMM_TYPE_SHARED, ranks.rank, MPI_INFO_NULL,
                                  &host_comm),
              "MPI_Comm_split_type");
    const int code = MPI_Comm_rank(host_comm, &ranks.local_rank);
    MPI_Comm_free(&host_comm);
    check_mpi(code, "MPI_Comm_rank");
  });
  return ranks;
}

// What a queued collective needs of its group, by value: the group may be gone before the
// MPI thread reaches it.
struct MpiGroupView {
  MPI_Comm comm = MPI_COMM_NULL;
  int world_size = 1;
  std::string_view name;
  std::string_view ranks_text;
};

// `queued_flow`: the flow from the range that queued it; `handoff_flow`: the flow to the wait for
// its result (CompletionState).
void run_collective(const MpiGroupView& group, const CollectiveCall& call,
                    std::uint64_t queued_flow, std::uint64_t handoff_flow) {
  const CollectiveRange recorded(Backend::kMpi, call, group.world_size, group.name,
                                 group.ranks_text);
  profiler::flow_end(queued_flow, trace::FlowKind::kEnqueue);
  profiler::flow_start(handoff_flow, trace::FlowKind::kHandoff);
  const MPI_Datatype type = mpi_type(call.dtype);
  switch (call.op) {
    case Collective::kAllReduce:
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, call.input.raw_data(),
                              mpi_count(call.in_elements, call), type, MPI_SUM, group.comm),
                "MPI_Allreduce");
      if (call.reduce == ReduceOp::kAverage) divide_by(call.input, group.world_size);
      return;
    case Collective::kBroadcast:
      check_mpi(MPI_Bcast(call.input.raw_data(), mpi_count(call.in_elements, call), type, call.root,
                          group.comm),
                "MPI_Bcast");
      return;
    case Collective::kAllGather: {
      const int count = mpi_count(call.in_elements, call);
      check_mpi(MPI_Allgather(call.input.raw_data(), count, type, call.output.raw_data(), count,
                              type, group.comm),
                "MPI_Allgather");
      return;
    }
    case Collective::kReduceScatter:
      check_mpi(
          MPI_Reduce_scatter_block(call.input.raw_data(), call.output.raw_data(),
                                   mpi_count(call.out_elements, call), type, MPI_SUM, group.comm),
          "MPI_Reduce_scatter_block");
      if (call.reduce == ReduceOp::kAverage) divide_by(call.output, group.world_size);
      return;
    case Collective::kBarrier:
      check_mpi(MPI_Barrier(group.comm), "MPI_Barrier");
      return;
  }
}

class MpiProcessGroup final : public ProcessGroup {
 public:
  MpiProcessGroup(MpiCommThread& thread, const MpiRanks& ranks)
      : ProcessGroup(Backend::kMpi, ranks.rank, ranks.world_size, ranks.local_rank),
        thread_(thread),
        view_{ranks.comm, ranks.world_size, name(),
              persistent_text(group_ranks_text(ranks.world_size))} {
    join_run();
  }
  ~MpiProcessGroup() override {
    // Queued after every collective of the group, so those still run on a valid communicator.
    thread_.enqueue([comm = view_.comm]() mutable { MPI_Comm_free(&comm); });
  }

  Device device() const override { return Device::cpu(); }

 protected:
  Work launch(CollectiveCall call) override {
    auto state = std::make_shared<detail::CompletionState>();
    const Collective op = call.op;
    const std::int64_t sequence = call.sequence;
    // A short range just before the queueing, with the flow to the collective's span: the trace
    // then shows when the collective could start (a range around the queueing would still be
    // open when the communication thread, woken by it, starts the collective).
    const std::uint64_t queued = profiler::new_flow_id();
    {
      const profiler::Range queueing("queue collective", trace::Category::kUserAnnotation);
      profiler::flow_start(queued, trace::FlowKind::kEnqueue);
    }
    thread_.enqueue([group = view_, state, queued, call = std::move(call)] {
      try {
        run_collective(group, call, queued, state->handoff_flow());
        state->complete();
      } catch (...) {
        state->complete(std::current_exception());
      }
    });
    return Work(state, op, sequence, name());
  }

 private:
  MpiCommThread& thread_;
  MpiGroupView view_;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_mpi_process_group() {
  MpiCommThread& thread = MpiCommThread::instance();
  return std::make_unique<MpiProcessGroup>(thread, query_ranks(thread));
}

}  // namespace tscope::engine::distributed
