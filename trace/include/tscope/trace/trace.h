#pragma once
// The in-memory trace every tensorscope layer shares: processes, tracks with columnar time-sorted
// events, interned strings, flows and side tables of span detail. Built by TraceBuilder (importers,
// the profiler, the .tsc reader), read by the analyzer, viewer and exporters; immutable once built.

#include <cstdint>
#include <span>
#include <vector>

#include "tscope/trace/event_details.h"
#include "tscope/trace/event_kinds.h"
#include "tscope/trace/event_ref.h"
#include "tscope/trace/records.h"
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

class Trace {
 public:
  const StringTable& strings() const { return strings_; }
  std::string_view string(StringId id) const { return strings_.view(id); }
  const std::vector<Process>& processes() const { return processes_; }
  const std::vector<Track>& tracks() const { return tracks_; }
  const Track& track(std::uint32_t index) const { return tracks_.at(index); }
  // Sorted by (from, to, kind).
  const std::vector<Flow>& flows() const { return flows_; }
  const TraceMetadata& metadata() const { return metadata_; }
  TraceMetadata& metadata() { return metadata_; }

  const std::vector<SpanDetail>& span_details() const { return span_details_; }
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  const std::vector<CopyInfo>& copies() const { return copies_; }
  const std::vector<OpInfo>& ops() const { return ops_; }
  const std::vector<Arg>& args() const { return args_; }

  // The detail of one span, or nullptr when it has none.
  const SpanDetail* span_detail(std::uint32_t track, std::uint32_t span) const;
  // A whole span reassembled from columns and side tables (allocates; not for hot loops).
  SpanRecord span_record(std::uint32_t track, std::uint32_t span) const;
  InstantRecord instant_record(std::uint32_t track, std::uint32_t instant) const;
  std::span<const Arg> args(ArgRange range) const;

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
  std::vector<Flow> flows_;
  std::vector<SpanDetail> span_details_;
  std::vector<KernelInfo> kernels_;
  std::vector<CopyInfo> copies_;
  std::vector<OpInfo> ops_;
  std::vector<Arg> args_;
  TraceMetadata metadata_;
};

}  // namespace tscope::trace
