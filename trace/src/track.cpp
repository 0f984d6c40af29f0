#include "tscope/trace/track.h"

#include <algorithm>

namespace tscope::trace {

MemoryRecord MemoryColumns::record(std::size_t index) const {
  // Every column has one entry per event, so the context's checked index bounds them all.
  const MemoryContext& shared = contexts.at(context.at(index));
  return {time.at(index), shared.action,          address[index],
          bytes[index],   shared.device,          shared.owner_op,
          shared.scope,   total_allocated[index], shared.total_reserved};
}

SpanIndices Track::spans_at_depth(std::size_t depth) const {
  if (depth >= depth_count()) return {};
  return {&spans_by_depth_, depth_begin_[depth], depth_begin_[depth + 1] - depth_begin_[depth]};
}

std::uint64_t Track::depth_index_bytes() const {
  return spans_by_depth_.capacity_bytes() + depth_begin_.capacity() * sizeof(std::uint32_t);
}

std::size_t Track::first_span_ending_after(std::size_t depth, TimeNs time) const {
  const auto level = spans_at_depth(depth);
  // Spans at one depth are disjoint and in time order: the first ending after `time` is the last
  // one starting at or before it when that one is still open at `time`, else the next. Searching
  // starts reads one column a probe, where ends (start plus duration) would read two.
  const auto starting_after = std::partition_point(
      level.begin(), level.end(), [&](std::uint32_t span) { return spans_.start[span] <= time; });
  auto found = starting_after;
  if (found != level.begin() && spans_.end(*(found - 1)) > time) --found;
  return static_cast<std::size_t>(found - level.begin());
}

std::size_t Track::first_span_starting_at(TimeNs time) const {
  const auto found = std::lower_bound(spans_.start.begin(), spans_.start.end(), time);
  return static_cast<std::size_t>(found - spans_.start.begin());
}

std::uint32_t Track::innermost_span_at(TimeNs time) const {
  for (std::size_t depth = depth_count(); depth-- > 0;) {
    const auto level = spans_at_depth(depth);
    const std::size_t position = first_span_ending_after(depth, time);
    if (position < level.size() && spans_.start[level[position]] <= time) return level[position];
  }
  return kNoIndex;
}

}  // namespace tscope::trace
