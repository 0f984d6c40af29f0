#pragma once
// A caching allocator's segments over time, for the memory panel's segments view: each segment
// reserved from the device is a band as tall as its bytes, filled as far as the blocks allocated
// inside it reach, so that the rest of the band is memory reserved but not allocated. Built once
// from the segment instants (trace/allocator_segments.h) and the memory events inside them, then
// sampled per pixel column in time logarithmic in the events. A trace without segment events (a
// Kineto trace) still gives the allocator's reserved and allocated totals, where it records them.

#include <cstdint>
#include <limits>
#include <vector>

#include "tscope/gui/memory_timeline.h"
#include "tscope/gui/time_view.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

struct AllocatorSegment {
  static constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::int32_t device = -1;
  TimeNs taken = 0;
  TimeNs given_back = kNever;  // kNever: still reserved when the trace ends
  // The bytes allocated inside it after each change, in time order.
  std::vector<TimeNs> change_times;
  std::vector<std::uint64_t> allocated;

  bool alive_at(TimeNs time) const { return taken <= time && time < given_back; }
  std::uint64_t allocated_at(TimeNs time) const;
};

// One live segment in a column, bottom-up in the order the segments were taken.
struct SegmentBand {
  std::uint32_t segment = 0;
  std::uint64_t bytes = 0;
  std::uint64_t allocated = 0;
};

struct SegmentColumn {
  TimeNs time = 0;  // the column's end: its state is the one there
  std::uint64_t reserved = 0;
  std::uint64_t allocated = 0;
  std::vector<SegmentBand> bands;  // empty for a trace without segment events
};

// A vertical run of a column in pixels above the plot's bottom.
struct PixelRun {
  float bottom = 0;
  float top = 0;
};

class SegmentTimeline {
 public:
  explicit SegmentTimeline(const trace::Trace& trace);

  bool empty() const { return segments_.empty() && total_times_.empty(); }
  bool has_segments() const { return !segments_.empty(); }
  const std::vector<AllocatorSegment>& segments() const { return segments_; }
  std::uint64_t peak_reserved() const { return peak_reserved_; }

  // `columns` samples of [range.begin, range.end), each the state at its column's end.
  std::vector<SegmentColumn> sample(TimeRange range, std::size_t columns) const;
  // The blocks allocated inside `segment` at `time`, largest first (a click on its band).
  std::vector<LiveBlock> blocks_at(const trace::Trace& trace, std::uint32_t segment,
                                   TimeNs time) const;

 private:
  std::vector<AllocatorSegment> segments_;    // by time taken
  std::vector<std::uint32_t> by_given_back_;  // indices into segments_, by time given back
  // Without segment events: the totals after each memory event that reports a reservation.
  std::vector<TimeNs> total_times_;
  std::vector<std::uint64_t> total_reserved_;
  std::vector<std::uint64_t> total_allocated_;
  std::uint64_t peak_reserved_ = 0;
};

// The segments' bands of `column` at `pixels_per_byte`, and their allocated parts: parts less than
// a pixel apart, and bands under a pixel tall, merge into one run, so a column draws at most one
// run per pixel row however many segments it holds; bands of a pixel or more stay runs of their
// own, drawn in alternating shades.
struct ColumnRuns {
  std::vector<PixelRun> reserved;
  std::vector<PixelRun> allocated;
};
ColumnRuns column_runs(const SegmentColumn& column, double pixels_per_byte);

}  // namespace tscope::gui
