#pragma once
// Builds the traces of a synthetic data-parallel run with known answers: each rank computes,
// optionally does extra host work in a user range (a planted straggler), then all-reduces on its
// communication thread with Seq numbers, as our engine's MPI process group records it; the
// main thread waits for the collective. Every rank's step ends when the last rank's transfer does.
// With `queue_flows`, as the engine records them: a 1 µs "queue collective" range on the main
// thread before each collective, an enqueue flow from it to the collective's span, and a handoff
// flow from that span to the main thread's wait.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tscope/trace/trace_builder.h"

namespace tscope::testing {

struct SyntheticRun {
  int world_size = 4;
  int steps = 8;
  trace::TimeNs compute_ns = 6'000'000;
  trace::TimeNs transfer_ns = 1'000'000;
  std::uint64_t bytes = 4 << 20;
  // Extra host work per step on `slow_rank` (none when negative).
  int slow_rank = -1;
  trace::TimeNs slow_ns = 0;
  // A few microseconds of arrival noise per rank and step, as real runs have.
  trace::TimeNs jitter_ns = 20'000;
  std::string run_id = "job-1";
  // Host of each rank ("node0" for all when empty) and its clock's offset from rank 0's.
  std::vector<std::string> hosts;
  std::vector<trace::TimeNs> clock_offsets;
  // A parameter broadcast of this length before the first step (none when 0), as a run's set-up
  // waits for every process to start.
  trace::TimeNs setup_broadcast_ns = 0;
  bool queue_flows = false;

  trace::TimeNs delay(int rank) const { return rank == slow_rank ? slow_ns : 0; }

  // Deterministic noise in [0, jitter_ns).
  trace::TimeNs noise(int rank, int step) const {
    const std::uint64_t mixed = (static_cast<std::uint64_t>(rank) * 2654435761u +
                                 static_cast<std::uint64_t>(step) * 40503u) %
                                1000u;
    return static_cast<trace::TimeNs>(mixed) * jitter_ns / 1000;
  }

  trace::Trace rank_trace(int rank) const {
    trace::TraceBuilder builder;
    trace::Process process;
    process.pid = 100 + rank;
    process.name = builder.intern("train");
    const std::uint32_t process_index = builder.add_process(process);
    const auto thread = [&](std::string_view name, std::int64_t tid) {
      trace::TrackInfo info;
      info.process = process_index;
      info.name = builder.intern(name);
      info.thread_id = tid;
      return builder.add_track(info);
    };
    const std::uint32_t main = thread("main", 1);
    const std::uint32_t comm = thread("mpi communication", 2);
    const auto span = [&](std::uint32_t track, std::string_view name, trace::Category category,
                          trace::TimeNs start, trace::TimeNs end,
                          std::vector<trace::Arg> args = {}) {
      trace::SpanRecord record;
      record.name = builder.intern(name);
      record.category = category;
      record.start = start;
      record.end = end;
      record.args = std::move(args);
      return builder.add_span(track, record);
    };
    std::uint64_t flow_id = 0;
    const auto flow = [&](trace::FlowKind kind, trace::EventRef from, trace::EventRef to) {
      builder.add_flow({kind, ++flow_id, from, to});
    };
    const trace::TimeNs offset =
        clock_offsets.empty() ? 0 : clock_offsets.at(static_cast<std::size_t>(rank));
    trace::TimeNs longest_delay = 0;
    for (int other = 0; other < world_size; ++other)
      longest_delay = std::max(longest_delay, delay(other));
    const trace::TimeNs step_ns = compute_ns + longest_delay + jitter_ns + transfer_ns + 100'000;
    const std::int64_t first_seq = setup_broadcast_ns > 0 ? 2 : 1;
    if (setup_broadcast_ns > 0) {
      const trace::TimeNs end = 1'000'000'000 + offset - 50'000;
      span(comm, "mpi:broadcast", trace::Category::kCommunication, end - setup_broadcast_ns, end,
           {{builder.intern("Collective name"), trace::StringArg{builder.intern("broadcast")}},
            {builder.intern("Seq"), std::int64_t{1}},
            {builder.intern("Process Group Name"), trace::StringArg{builder.intern("0")}},
            {builder.intern("Group size"), std::int64_t{world_size}},
            {builder.intern("bytes"), static_cast<std::int64_t>(bytes)}});
    }
    for (int step = 0; step < steps; ++step) {
      const trace::TimeNs start = 1'000'000'000 + step * step_ns + offset;
      const trace::TimeNs computed = start + compute_ns;
      span(main, "step " + std::to_string(step), trace::Category::kStep, start, start + step_ns);
      span(main, "matmul", trace::Category::kCpuOp, start, computed);
      const trace::TimeNs arrival = computed + delay(rank) + noise(rank, step);
      if (delay(rank) > 0)
        span(main, "extra host work", trace::Category::kUserAnnotation, computed,
             computed + delay(rank));
      const trace::TimeNs done = start + compute_ns + longest_delay + jitter_ns + transfer_ns;
      const trace::TimeNs queued = queue_flows ? arrival + 1'000 : arrival;
      std::optional<trace::EventRef> queue;
      if (queue_flows) {
        queue = span(main, "queue collective", trace::Category::kUserAnnotation, arrival, queued);
      }
      const trace::EventRef wait = span(main, "wait:all_reduce", trace::Category::kSynchronization,
                                        queued, done, {{builder.intern("Seq"), first_seq + step}});
      const trace::EventRef collective =
          span(comm, "mpi:all_reduce", trace::Category::kCommunication, queued, done,
               {{builder.intern("Collective name"), trace::StringArg{builder.intern("allreduce")}},
                {builder.intern("Seq"), first_seq + step},
                {builder.intern("Process Group Name"), trace::StringArg{builder.intern("0")}},
                {builder.intern("Group size"), std::int64_t{world_size}},
                {builder.intern("bytes"), static_cast<std::int64_t>(bytes)}});
      if (queue) {
        flow(trace::FlowKind::kEnqueue, *queue, collective);
        flow(trace::FlowKind::kHandoff, collective, wait);
      }
    }
    builder.set_metadata_value("rank", std::to_string(rank));
    builder.set_metadata_value("world_size", std::to_string(world_size));
    builder.set_metadata_value("host",
                               hosts.empty() ? "node0" : hosts.at(static_cast<std::size_t>(rank)));
    builder.set_metadata_value("backend", "mpi");
    if (!run_id.empty()) builder.set_metadata_value("run_id", run_id);
    return builder.finalize();
  }
};

}  // namespace tscope::testing
