#include "tscope/engine/distributed/process_group.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <string>

#include "distributed/collective_range.h"
#include "tscope/engine/factories.h"
#include "tscope/profiler/trace_metadata.h"

namespace tscope::engine::distributed {
namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

}  // namespace

ProcessGroup::ProcessGroup(Backend backend, int rank, int world_size, int local_rank)
    : backend_(backend),
      rank_(rank),
      world_size_(world_size),
      local_rank_(local_rank),
      name_(persistent_text("0")),
      planner_(backend, rank, world_size) {}

void ProcessGroup::join_run() {
  // Rank 0's wall-clock start and pid name the run; every rank takes them from rank 0.
  const auto started = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  const Tensor id_on_host =
      from_vector(std::vector<std::int64_t>{static_cast<std::int64_t>(started),
                                            static_cast<std::int64_t>(getpid())},
                  {2});
  const Tensor id = id_on_host.to(device());
  broadcast(id, 0);
  const std::vector<std::int64_t> agreed = id.to(Device::cpu()).to_vector<std::int64_t>();
  run_id_ = std::to_string(agreed[0]) + "-" + std::to_string(agreed[1]);

  profiler::set_trace_metadata("rank", std::to_string(rank_));
  profiler::set_trace_metadata("world_size", std::to_string(world_size_));
  profiler::set_trace_metadata("local_rank", std::to_string(local_rank_));
  profiler::set_trace_metadata("host", host_name());
  profiler::set_trace_metadata("backend", backend_name(backend_));
  profiler::set_trace_metadata("run_id", run_id_);
}

void ProcessGroup::all_reduce(const Tensor& tensor, ReduceOp op) {
  launch(planner_.all_reduce(tensor, op, false)).wait();
}

Work ProcessGroup::all_reduce_async(const Tensor& tensor, ReduceOp op,
                                    std::optional<std::int64_t> bucket) {
  CollectiveCall call = planner_.all_reduce(tensor, op, true);
  call.bucket = bucket;
  return launch(std::move(call));
}

void ProcessGroup::broadcast(const Tensor& tensor, int root) {
  launch(planner_.broadcast(tensor, root, false)).wait();
}

Work ProcessGroup::broadcast_async(const Tensor& tensor, int root) {
  return launch(planner_.broadcast(tensor, root, true));
}

void ProcessGroup::all_gather(const Tensor& output, const Tensor& input) {
  launch(planner_.all_gather(output, input, false)).wait();
}

Work ProcessGroup::all_gather_async(const Tensor& output, const Tensor& input) {
  return launch(planner_.all_gather(output, input, true));
}

void ProcessGroup::reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op) {
  launch(planner_.reduce_scatter(output, input, op, false)).wait();
}

Work ProcessGroup::reduce_scatter_async(const Tensor& output, const Tensor& input, ReduceOp op) {
  return launch(planner_.reduce_scatter(output, input, op, true));
}

void ProcessGroup::barrier() {
  launch(planner_.barrier(false)).wait();
}

Work ProcessGroup::barrier_async() {
  return launch(planner_.barrier(true));
}

}  // namespace tscope::engine::distributed
