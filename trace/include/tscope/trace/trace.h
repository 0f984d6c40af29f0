#pragma once
// The in-memory trace every tensorscope layer shares: processes, tracks with columnar time-sorted
// events, interned strings, flows and side tables of span detail. Built by TraceBuilder (importers,
// the profiler, the .tsc reader), read by the analyzer, viewer and exporters; immutable once built.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tscope/trace/arg_list.h"
#include "tscope/trace/event_details.h"
#include "tscope/trace/event_kinds.h"
#include "tscope/trace/event_ref.h"
#include "tscope/trace/flow_table.h"
#include "tscope/trace/records.h"
#include "tscope/trace/shape_lists.h"
#include "tscope/trace/string_table.h"
#include "tscope/trace/trace_metadata.h"
#include "tscope/trace/track.h"

namespace tscope::trace {

// Counts of what a trace holds, for summaries and `tscope info`.
struct TraceCounts {
  std::uint64_t spans = 0;
  std::uint64_t instants = 0;
  std::uint64_t counter_samples = 0;
  std::uint64_t memory_events = 0;
  std::uint64_t flows = 0;
  std::uint64_t spans_by_category[kCategoryCount] = {};
};

// One operator span's detail as the trace stores it, viewed through its tables (valid while the
// trace lives).
struct OpView {
  ShapeLists::List input_shapes;
  std::uint64_t flops = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::span<const std::uint64_t> tensors_read;
  std::span<const std::uint64_t> tensors_written;
};

class Trace {
 public:
  const StringTable& strings() const { return strings_; }
  std::string_view string(StringId id) const { return strings_.view(id); }
  const std::vector<Process>& processes() const { return processes_; }
  const std::vector<Track>& tracks() const { return tracks_; }
  const Track& track(std::uint32_t index) const { return tracks_.at(index); }
  // Sorted by (from, to, kind).
  const FlowTable& flows() const { return flows_; }
  const TraceMetadata& metadata() const { return metadata_; }
  TraceMetadata& metadata() { return metadata_; }

  const std::vector<SpanDetail>& span_details() const { return span_details_; }
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  const std::vector<CopyInfo>& copies() const { return copies_; }
  const std::vector<OpDetail>& op_details() const { return op_details_; }
  const ShapeLists& shapes() const { return shapes_; }
  const std::vector<std::uint64_t>& tensor_ids() const { return tensor_ids_; }
  // Each distinct argument once; lists of them are runs of arg_lists().
  const std::vector<Arg>& args() const { return args_; }
  const std::vector<std::uint32_t>& arg_lists() const { return arg_lists_; }

  // The shared detail of one span, or nullptr when it has none.
  const SpanDetail* span_detail(std::uint32_t track, std::uint32_t span) const;
  // The operator detail of one span, when it has one.
  std::optional<OpView> op(std::uint32_t track, std::uint32_t span) const;
  // A whole span reassembled from columns and side tables (allocates; not for hot loops).
  SpanRecord span_record(std::uint32_t track, std::uint32_t span) const;
  InstantRecord instant_record(std::uint32_t track, std::uint32_t instant) const;
  ArgList args(ArgRange range) const;

  // Earliest start and latest end over all events; {0, 0} for an empty trace.
  TimeNs begin_time() const;
  TimeNs end_time() const;
  TraceCounts counts() const;

  bool operator==(const Trace&) const = default;

 private:
  friend class TraceBuilder;

  StringTable strings_;
  std::vector<Process> processes_;
  std::vector<Track> tracks_;
  FlowTable flows_;
  std::vector<SpanDetail> span_details_;
  std::vector<KernelInfo> kernels_;
  std::vector<CopyInfo> copies_;
  std::vector<OpDetail> op_details_;
  ShapeLists shapes_;
  std::vector<std::uint64_t> tensor_ids_;
  std::vector<Arg> args_;
  std::vector<std::uint32_t> arg_lists_;
  TraceMetadata metadata_;
};

}  // namespace tscope::trace
