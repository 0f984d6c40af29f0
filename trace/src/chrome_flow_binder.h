#pragma once
// Binds Chrome flow events (s/f) to the spans of their row as the Trace Event format defines it:
// to the innermost enclosing slice, or to the next slice for an "f" without "bp":"e". Slices are
// closed intervals here, so a zero-length launch (common in integer-microsecond Kineto traces)
// still holds the flow that starts at its timestamp.

#include <cstdint>
#include <optional>
#include <vector>

#include "mapped_buffer.h"
#include "tscope/trace/event_ref.h"
#include "tscope/trace/records.h"

namespace tscope::trace {

class ChromeFlowBinder {
 public:
  void add_span(TimeNs start, TimeNs end, EventRef ref);
  // Sorts the spans and builds the search structure; call once, after the last add_span.
  void prepare();
  std::size_t size() const { return spans_.size(); }

  // The deepest span with start <= time <= end (the latest start; on equal starts the shortest).
  std::optional<EventRef> enclosing(TimeNs time) const;
  // The first span starting at or after `time`.
  std::optional<EventRef> next(TimeNs time) const;

 private:
  // Every span of a trace passes through here, so its reference is kept packed (24 bytes an
  // entry, not 32).
  struct Entry {
    TimeNs start;
    TimeNs end;
    std::uint64_t packed_ref;
  };
  std::vector<Entry> spans_;
  // Segment tree of the maximum end over ranges of spans_, so the rightmost span that starts by
  // `time` and ends at or after it is found in O(log n) even behind long runs of closed siblings.
  // Mapped, as prepare() runs on a helper thread (mapped_buffer.h).
  MappedArray<TimeNs> max_end_;
  std::size_t leaves_ = 0;
};

}  // namespace tscope::trace
