#include "tscope/trace/memory_order.h"

#include <algorithm>

namespace tscope::trace {

MemoryOrder::MemoryOrder(const Trace& trace) : trace_(&trace) {
  std::size_t pools = 0;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const MemoryColumns& memory = trace.track(track_index).memory();
    if (memory.size() == 0) continue;
    ++pools;
    only_track_ = track_index;
    only_size_ = memory.size();
  }
  if (pools == 1) {
    const TimeColumn& times = trace.track(only_track_).memory().time;
    if (std::is_sorted(times.begin(), times.end())) return;
  }
  only_track_ = kNoIndex;
  only_size_ = 0;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const MemoryColumns& memory = trace.track(track_index).memory();
    for (std::uint32_t i = 0; i < memory.size(); ++i)
      steps_.push_back({memory.time[i], track_index, i});
  }
  // A stable sort keeps same-time events in recorded order.
  std::stable_sort(steps_.begin(), steps_.end(),
                   [](const MemoryStep& a, const MemoryStep& b) { return a.time < b.time; });
}

MemoryStep MemoryOrder::at(std::size_t position) const {
  if (only_track_ == kNoIndex) return steps_[position];
  return {trace_->track(only_track_).memory().time[position], only_track_,
          static_cast<std::uint32_t>(position)};
}

}  // namespace tscope::trace
