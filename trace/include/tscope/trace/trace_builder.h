#pragma once
// Assembles a Trace from events given in any order: importers, the profiler and the .tsc reader
// append records, then finalize() sorts each track, computes span depth from containment, builds
// the per-depth index and resolves flows.

#include <cstdint>
#include <string_view>
#include <vector>

#include "tscope/trace/arg_runs.h"
#include "tscope/trace/record_interner.h"
#include "tscope/trace/trace.h"
#include "tscope/trace/trace_sink.h"

namespace tscope::trace {

// One end of a flow known only by time and track (Chrome's s/t/f events): finalize binds it to a
// span and pairs the ends that share kind and id.
struct FlowEndpoint {
  enum class Binding : std::uint8_t {
    kEnclosingSpan,  // the deepest span containing the time
    kNextSpan,       // the first span starting at or after the time
  };

  FlowKind kind = FlowKind::kOther;
  std::uint64_t id = 0;
  bool is_start = true;
  std::uint32_t track = 0;
  TimeNs time = 0;
  Binding binding = Binding::kEnclosingSpan;
};

struct FinalizeOptions {
  // Add a launch -> kernel flow for each runtime/driver API span and GPU span that share a
  // correlation id, and an op -> kernel flow for each CPU op and GPU span that share an external
  // correlation id. Flows already present between the same events are not duplicated.
  bool link_correlated_events = true;
};

class TraceBuilder final : public TraceSink {
 public:
  TraceBuilder() = default;

  StringId intern(std::string_view text) override { return trace_.strings_.intern(text); }
  std::uint32_t add_process(const Process& process) override;
  std::uint32_t add_track(const TrackInfo& track) override;
  EventRef add_span(std::uint32_t track, const SpanRecord& span) override;
  EventRef add_instant(std::uint32_t track, const InstantRecord& instant) override;
  EventRef add_counter_sample(std::uint32_t track, TimeNs time, double value) override;
  EventRef add_memory_event(std::uint32_t track, const MemoryRecord& event) override;
  void add_flow(const Flow& flow) override;
  void add_flow_endpoint(const FlowEndpoint& endpoint);
  void add_dropped_events(std::uint64_t count) override;
  void set_metadata_value(std::string_view key, std::string_view value) override;

  // What was added, to amend before finalize (an importer that learns names late).
  Process& process(std::uint32_t index) { return trace_.processes_.at(index); }
  TrackInfo& track_info(std::uint32_t index) { return trace_.tracks_.at(index).info_; }
  // Moves every event and flow endpoint added so far by `offset` (an importer that learns its
  // time base after the events); a time beyond int64 saturates.
  void shift_times(TimeNs offset);

  const StringTable& strings() const { return trace_.strings_; }
  std::size_t track_count() const { return trace_.tracks_.size(); }
  TraceMetadata& metadata() { return trace_.metadata_; }

  // Produces the finished trace and leaves this builder empty. The trace owns only what it holds:
  // spare capacity is released and the builder's scratch memory returned to the system.
  Trace finalize(const FinalizeOptions& options = {});

 private:
  struct SortedPositions;

  Track& track_for_event(std::uint32_t track);
  ArgRange append_args(const std::vector<Arg>& args);
  std::uint32_t store_op(const OpInfo& op);
  TensorRun append_tensor_ids(const OpInfo& op);
  SortedPositions sort_tracks();
  void order_side_tables();
  void compute_depths(Track& track);
  void resolve_flow_endpoints();
  // The launch -> GPU activity and op -> GPU activity flows that correlation ids name.
  std::vector<Flow> correlated_flows() const;
  void prefer_correlated_flows(const std::vector<Flow>& linked);
  void release_spare_capacity();

  Trace trace_;
  // Sorted, freed of duplicates and stored as the trace's FlowTable by finalize.
  std::vector<Flow> flows_;
  std::vector<FlowEndpoint> flow_endpoints_;
  // What keeps each side table's entries distinct while events arrive; dropped by finalize.
  ArgRuns arg_runs_;
  RecordInterner<SpanDetail> detail_records_;
  RecordInterner<KernelInfo> kernel_records_;
  RecordInterner<CopyInfo> copy_records_;
  RecordInterner<OpDetail> op_records_;
  HashedValues<std::uint32_t> shape_lists_;
  std::vector<RecordInterner<MemoryContext>> memory_contexts_;  // per track
};

}  // namespace tscope::trace
