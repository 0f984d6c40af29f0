#include "tscope/gui/lane_layout.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <tuple>

#include "saturating_bytes.h"

namespace tscope::gui {

namespace {

// Host threads above the GPU streams they launch onto, plots last, as Perfetto and Nsight order
// a process.
int kind_order(trace::TrackKind kind) {
  switch (kind) {
    case trace::TrackKind::kHostThread:
      return 0;
    case trace::TrackKind::kGpuStream:
      return 1;
    case trace::TrackKind::kCounter:
      return 2;
    case trace::TrackKind::kMemoryPool:
      return 3;
  }
  return 4;
}

std::string lane_label(const trace::Trace& trace, const trace::TrackInfo& info) {
  std::string label;
  if (info.process < trace.processes().size()) {
    const trace::Process& process = trace.processes()[info.process];
    label = std::string(trace.string(process.name));
    if (label.empty()) label = "pid " + std::to_string(process.pid);
    label += " / ";
  }
  const std::string_view name = trace.string(info.name);
  label += name.empty() ? std::string(trace::to_string(info.kind)) : std::string(name);
  // Our profiler names every thread after the program; the thread id tells them apart.
  const std::string tid = std::to_string(info.thread_id);
  if (info.kind == trace::TrackKind::kHostThread && info.thread_id >= 0 &&
      name.find(tid) == std::string_view::npos) {
    label += " (tid " + tid + ")";
  }
  return label;
}

std::string peak_label(double peak, bool bytes) {
  char text[48];
  if (bytes) {
    std::snprintf(text, sizeof text, "  (peak %.1f MiB)", peak / (1 << 20));
  } else {
    std::snprintf(text, sizeof text, "  (peak %.4g)", peak);
  }
  return text;
}

double largest(const auto& values) {
  double most = 0;
  for (const auto value : values)
    most = std::max(most, static_cast<double>(value));
  return most;
}

// Running allocated bytes, shifted so the lowest point is zero: frees of memory allocated before
// the trace began would otherwise go negative.
trace::WideningColumn replay_allocations(const trace::MemoryColumns& memory) {
  std::vector<std::int64_t> running(memory.size());
  std::int64_t total = 0;
  std::int64_t lowest = 0;
  for (std::size_t event = 0; event < memory.size(); ++event) {
    const std::int64_t bytes = signed_bytes(memory.bytes[event]);
    total =
        saturating_add(total, memory.action(event) == trace::MemoryAction::kAlloc ? bytes : -bytes);
    running[event] = total;
    lowest = std::min(lowest, total);
  }
  trace::WideningColumn shifted;
  shifted.reserve(memory.size());
  for (std::size_t event = 0; event < memory.size(); ++event) {
    // In unsigned arithmetic: the difference of two int64 fits uint64, not int64.
    shifted.push_back(static_cast<std::uint64_t>(running[event]) -
                      static_cast<std::uint64_t>(lowest));
  }
  return shifted;
}

}  // namespace

float Lane::height() const {
  return kLaneHeaderHeight + rows * row_height();
}

LaneLayout::LaneLayout(const trace::Trace& trace)
    : lane_by_track_(trace.tracks().size(), trace::kNoIndex) {
  std::vector<std::uint32_t> order(trace.tracks().size());
  std::iota(order.begin(), order.end(), 0u);
  const auto sort_key = [&](std::uint32_t index) {
    const trace::TrackInfo& info = trace.track(index).info();
    const std::int32_t process_sort =
        info.process < trace.processes().size() ? trace.processes()[info.process].sort_index : 0;
    return std::tuple(process_sort, info.process, kind_order(info.kind), info.sort_index, index);
  };
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return sort_key(a) < sort_key(b); });

  for (const std::uint32_t index : order) {
    const trace::Track& track = trace.track(index);
    Lane lane;
    lane.track = index;
    lane.label = lane_label(trace, track.info());
    if (track.memory().size() != 0) {
      lane.kind = LaneKind::kMemory;
      lane.rows = 1;
      // Every context of the track is some event's, so the largest reserve is among them. (Plain
      // loops: clang 14, the sanitizer build's compiler, rejects libstdc++ 12's views here.)
      const trace::MemoryColumns& memory = track.memory();
      double most = 0;
      for (const trace::MemoryContext& context : memory.contexts)
        most = std::max(most, static_cast<double>(context.total_reserved));
      for (std::size_t event = 0; event < memory.size(); ++event)
        most = std::max(most, static_cast<double>(memory.total_allocated[event]));
      lane.plot_max = most;
      if (lane.plot_max == 0) {
        lane.replayed_allocated = replay_allocations(track.memory());
        lane.plot_max = largest(lane.replayed_allocated);
      }
    } else if (track.counters().size() != 0) {
      lane.kind = LaneKind::kCounter;
      lane.rows = 1;
      lane.plot_max = largest(track.counters().value);
    } else if (track.spans().size() != 0 || track.instants().size() != 0) {
      lane.rows = static_cast<std::uint32_t>(track.depth_count());
    } else {
      continue;
    }
    if (lane.kind != LaneKind::kSpans)
      lane.label += peak_label(lane.plot_max, lane.kind == LaneKind::kMemory);
    lane_by_track_[index] = static_cast<std::uint32_t>(lanes_.size());
    lanes_.push_back(std::move(lane));
  }
  // Processes sort by rank first (merged ranks number them so), so a rank's lanes are adjacent.
  for (std::uint32_t index = 0; index < lanes_.size(); ++index) {
    const trace::TrackInfo& info = trace.track(lanes_[index].track).info();
    const std::int32_t rank =
        info.process < trace.processes().size() ? trace.processes()[info.process].rank : -1;
    if (groups_.empty() || groups_.back().rank != rank) {
      groups_.push_back({.rank = rank,
                         .label = rank >= 0 ? "rank " + std::to_string(rank) : "no rank",
                         .first_lane = index});
    }
    ++groups_.back().lane_count;
  }
  if (groups_.size() < 2) groups_.clear();
  for (LaneGroup& group : groups_)
    group.label += " (" + std::to_string(group.lane_count) + " lanes)";
  place();
}

void LaneLayout::place() {
  float top = 0;
  std::size_t next_group = 0;
  for (std::uint32_t index = 0; index < lanes_.size(); ++index) {
    if (next_group < groups_.size() && groups_[next_group].first_lane == index) {
      groups_[next_group].top = top;
      top += kLaneHeaderHeight + kLaneGap;
      ++next_group;
    }
    Lane& lane = lanes_[index];
    lane.hidden = next_group > 0 && groups_[next_group - 1].collapsed;
    lane.top = top;
    if (!lane.hidden) top += lane.height() + kLaneGap;
  }
  content_height_ = top;
}

std::optional<std::size_t> LaneLayout::group_at(float y) const {
  for (std::size_t group = 0; group < groups_.size(); ++group) {
    if (y >= groups_[group].top && y < groups_[group].top + kLaneHeaderHeight) return group;
  }
  return std::nullopt;
}

void LaneLayout::set_collapsed(std::size_t group, bool collapsed) {
  groups_.at(group).collapsed = collapsed;
  place();
}

void LaneLayout::reveal_track(std::uint32_t track) {
  if (track >= lane_by_track_.size() || lane_by_track_[track] == trace::kNoIndex) return;
  const std::uint32_t lane = lane_by_track_[track];
  for (std::size_t group = 0; group < groups_.size(); ++group) {
    const LaneGroup& found = groups_[group];
    if (found.collapsed && lane >= found.first_lane && lane < found.first_lane + found.lane_count)
      set_collapsed(group, false);
  }
}

const Lane* LaneLayout::lane_of_track(std::uint32_t track) const {
  if (track >= lane_by_track_.size() || lane_by_track_[track] == trace::kNoIndex) return nullptr;
  const Lane& lane = lanes_[lane_by_track_[track]];
  return lane.hidden ? nullptr : &lane;
}

}  // namespace tscope::gui
