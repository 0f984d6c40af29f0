#pragma once
// Live bytes over time, stacked by owner (op, scope or category), for the viewer's memory panel:
// built once per grouping from the trace's memory events, then sampled per pixel column in time
// logarithmic in the number of events, so a frame costs the same on a 10M-event trace as on a
// small one. Marks the peak and the first out-of-memory event, and answers which allocations a
// band holds at a moment (what a click on it selects) and the op that made them.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tscope/gui/time_view.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

enum class MemoryGrouping : std::uint8_t { kOwnerOp, kScope, kCategory };

// One pixel column's sample: the moment of most live bytes in it and the stack there.
struct MemoryColumn {
  TimeNs time = 0;
  std::uint64_t total = 0;
  std::vector<std::uint64_t> by_group;  // one per group(), the last being "other"
};

struct LiveBlock {
  trace::EventRef event;  // the allocation's memory event
  std::uint64_t bytes = 0;
};

class MemoryTimeline {
 public:
  // Groups beyond this many (by their bytes at the peak) fold into "other".
  static constexpr std::size_t kShownGroups = 8;

  MemoryTimeline(const trace::Trace& trace, MemoryGrouping grouping);

  bool empty() const { return times_.empty(); }
  MemoryGrouping grouping() const { return grouping_; }
  const std::vector<std::string>& groups() const { return group_names_; }
  TimeNs peak_time() const { return peak_time_; }
  std::uint64_t peak_bytes() const { return peak_bytes_; }
  std::optional<TimeNs> oom_time() const { return oom_time_; }

  // Live bytes right after the last memory event at or before `time`.
  std::uint64_t total_at(TimeNs time) const;
  // `columns` samples of [range.start, range.end): each the moment of most live bytes in its
  // column (or the state carried into it when it has no event).
  std::vector<MemoryColumn> sample(TimeRange range, std::size_t columns) const;
  // The allocations of `group` alive right after the last memory event at or before `time`,
  // largest first (a click on that band at that moment).
  std::vector<LiveBlock> blocks_at(const trace::Trace& trace, TimeNs time, std::size_t group) const;
  // The op span that made `block`: on a host thread, the innermost span around its time that is
  // named as its owner op, or failing that the innermost op around it.
  static std::optional<trace::EventRef> op_of(const trace::Trace& trace, const LiveBlock& block);

 private:
  std::size_t group_of(std::uint32_t key) const;  // "other" for keys not shown
  std::size_t last_event_at(TimeNs time) const;   // index into times_, or npos before the first
  std::size_t argmax(std::size_t first, std::size_t last) const;  // over totals_[first, last)
  std::vector<std::uint64_t> groups_after(std::size_t event) const;

  MemoryGrouping grouping_;
  std::vector<std::string> group_names_;
  std::unordered_map<std::uint32_t, std::uint8_t> key_to_group_;  // op or scope name, or category
  // Per memory event in time order: its time and the live bytes after it; its changes to the
  // groups (a free, an allocation, or both for a reused address) are deltas
  // [delta_begin_[i], delta_begin_[i + 1]).
  std::vector<TimeNs> times_;
  std::vector<std::uint64_t> totals_;
  std::vector<std::uint32_t> delta_begin_;
  std::vector<std::uint8_t> delta_group_;
  std::vector<std::int64_t> delta_bytes_;
  // Group bytes after every kCheckpointEvery-th event, so a stack needs few deltas replayed.
  std::vector<std::vector<std::int64_t>> checkpoints_;
  // levels_[l][i]: the index of the largest total among events [i << (l+1), (i+1) << (l+1)).
  std::vector<std::vector<std::uint32_t>> levels_;
  TimeNs peak_time_ = 0;
  std::uint64_t peak_bytes_ = 0;
  std::optional<TimeNs> oom_time_;
};

}  // namespace tscope::gui
