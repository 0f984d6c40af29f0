#pragma once
// Builds small traces with known answers for analyzer tests: one process with a main thread, a
// loader worker thread, a GPU stream and a memory pool, and helpers to add events to them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace_records.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::testing {

class SyntheticTrace {
 public:
  SyntheticTrace() {
    trace::Process process;
    process.pid = 1;
    process.name = builder_.intern("train");
    const std::uint32_t index = builder_.add_process(process);
    main_ = add_track(index, trace::TrackKind::kHostThread, "main");
    worker_ = add_track(index, trace::TrackKind::kHostThread, "loader worker");
    gpu_ = add_track(index, trace::TrackKind::kGpuStream, "stream 7");
    pool_ = add_track(index, trace::TrackKind::kMemoryPool, "host memory");
  }

  void metadata(std::string_view key, std::string_view value) {
    builder_.set_metadata_value(key, value);
  }

  std::uint32_t main() const { return main_; }
  std::uint32_t worker() const { return worker_; }
  std::uint32_t gpu() const { return gpu_; }

  trace::EventRef span(std::uint32_t track, std::string_view name, trace::Category category,
                       trace::TimeNs start, trace::TimeNs end) {
    return builder_.add_span(track, named_span(builder_, name, category, start, end));
  }

  // An engine op with its dataflow and traffic.
  trace::EventRef op(std::string_view name, trace::TimeNs start, trace::TimeNs end,
                     std::vector<std::uint64_t> reads, std::vector<std::uint64_t> writes,
                     std::uint64_t bytes_read, std::uint64_t bytes_written, std::uint64_t flops) {
    trace::SpanRecord record = named_span(builder_, name, trace::Category::kCpuOp, start, end);
    trace::OpInfo info;
    info.tensors_read = std::move(reads);
    info.tensors_written = std::move(writes);
    info.bytes_read = bytes_read;
    info.bytes_written = bytes_written;
    info.flops = flops;
    record.op = info;
    return builder_.add_span(main_, record);
  }

  // A host-to-device copy on the GPU stream, launched by a runtime call on the main thread.
  void copy(trace::TimeNs launch_start, trace::TimeNs start, trace::TimeNs end, std::uint64_t bytes,
            trace::MemoryKind source) {
    trace::SpanRecord record =
        named_span(builder_, "Memcpy HtoD", trace::Category::kMemcpy, start, end);
    record.copy = trace::CopyInfo{bytes, trace::CopyDirection::kHostToDevice, source,
                                  trace::MemoryKind::kDevice};
    launch_on_gpu("cudaMemcpyAsync", launch_start, launch_start + 1'000, record);
  }

  // A kernel on the GPU stream, launched by a call named `launch_call` on the main thread.
  void kernel(trace::TimeNs launch_start, trace::TimeNs launch_end, trace::TimeNs start,
              trace::TimeNs end, std::string_view launch_call = "cudaLaunchKernel",
              std::string_view name = "gemm_kernel") {
    launch_on_gpu(launch_call, launch_start, launch_end,
                  named_span(builder_, name, trace::Category::kKernel, start, end));
  }

  void memory(trace::TimeNs time, trace::MemoryAction action, std::uint64_t address,
              std::uint64_t bytes, std::string_view owner, std::string_view scope) {
    builder_.add_memory_event(pool_,
                              memory_record(builder_, time, action, address, bytes, owner, scope));
  }

  void instant(std::string_view name, trace::TimeNs time,
               const std::vector<std::pair<std::string, std::int64_t>>& args) {
    trace::InstantRecord record;
    record.name = builder_.intern(name);
    record.time = time;
    for (const auto& [key, value] : args)
      record.args.push_back({builder_.intern(key), value});
    builder_.add_instant(main_, record);
  }

  // A training step as the profiler's StepRange records it: its name and its batch_size argument.
  void step(std::string_view name, trace::TimeNs start, trace::TimeNs end,
            std::int64_t batch_size) {
    trace::SpanRecord record = named_span(builder_, name, trace::Category::kStep, start, end);
    record.args.push_back({builder_.intern("batch_size"), batch_size});
    builder_.add_span(main_, record);
  }

  // An instant with a text argument beside its numeric ones (an OOM's requesting op).
  void instant_with_text(std::string_view name, trace::TimeNs time,
                         const std::vector<std::pair<std::string, std::int64_t>>& args,
                         const std::vector<std::pair<std::string, std::string>>& texts) {
    trace::InstantRecord record;
    record.name = builder_.intern(name);
    record.time = time;
    for (const auto& [key, value] : args)
      record.args.push_back({builder_.intern(key), value});
    for (const auto& [key, value] : texts) {
      record.args.push_back({builder_.intern(key), trace::StringArg{builder_.intern(value)}});
    }
    builder_.add_instant(main_, record);
  }

  // An arrow between two of the trace's events (a handoff from a loader's batch to the wait).
  void flow(trace::FlowKind kind, trace::EventRef from, trace::EventRef to) {
    builder_.add_flow({kind, ++flow_id_, from, to});
  }
  trace::Trace finish() { return builder_.finalize(); }

 private:
  // `activity` on the GPU stream and the runtime call `launch_call` on the main thread that
  // launched it, joined by a fresh correlation id.
  void launch_on_gpu(std::string_view launch_call, trace::TimeNs launch_start,
                     trace::TimeNs launch_end, trace::SpanRecord activity) {
    const std::uint32_t correlation = ++correlation_;
    trace::SpanRecord launch =
        named_span(builder_, launch_call, trace::Category::kRuntimeApi, launch_start, launch_end);
    launch.correlation_id = correlation;
    builder_.add_span(main_, launch);
    activity.correlation_id = correlation;
    builder_.add_span(gpu_, activity);
  }

  std::uint32_t add_track(std::uint32_t process, trace::TrackKind kind, std::string_view name) {
    return builder_.add_track(track_info(builder_, process, kind, name));
  }

  trace::TraceBuilder builder_;
  std::uint32_t main_ = 0;
  std::uint32_t worker_ = 0;
  std::uint32_t gpu_ = 0;
  std::uint32_t pool_ = 0;
  std::uint32_t correlation_ = 0;
  std::uint64_t flow_id_ = 0;
};

}  // namespace tscope::testing
