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

// What spans and instants point into by index: shared span details and the kernel, copy and
// operator records they name, the operators' shape lists and tensor ids, and argument lists. The
// builder keeps them in the order of the sorted events (TraceBuilder::order_side_tables).
struct SideTables {
  std::vector<SpanDetail> span_details;
  std::vector<KernelInfo> kernels;
  std::vector<CopyInfo> copies;
  std::vector<OpDetail> op_details;
  ShapeLists shapes;
  std::vector<std::uint64_t> tensor_ids;
  // Each distinct argument once; lists of them are runs of arg_lists.
  std::vector<Arg> args;
  std::vector<std::uint32_t> arg_lists;

  bool operator==(const SideTables&) const = default;
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

  const std::vector<SpanDetail>& span_details() const { return side_.span_details; }
  const std::vector<KernelInfo>& kernels() const { return side_.kernels; }
  const std::vector<CopyInfo>& copies() const { return side_.copies; }
  const std::vector<OpDetail>& op_details() const { return side_.op_details; }
  const ShapeLists& shapes() const { return side_.shapes; }
  const std::vector<std::uint64_t>& tensor_ids() const { return side_.tensor_ids; }
  // Each distinct argument once; lists of them are runs of arg_lists().
  const std::vector<Arg>& args() const { return side_.args; }
  const std::vector<std::uint32_t>& arg_lists() const { return side_.arg_lists; }

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
  SideTables side_;
  TraceMetadata metadata_;
};

}  // namespace tscope::trace
