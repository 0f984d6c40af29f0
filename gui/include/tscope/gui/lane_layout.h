#pragma once
// Where each track of a trace sits on the timeline: one lane per host thread, GPU stream, counter
// or memory pool, grouped by process and ordered, with a header row and one row per span depth.
// Computed once per loaded trace; frame building and hit testing read it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tscope/trace/trace.h"
#include "tscope/trace/widening_column.h"

namespace tscope::gui {

inline constexpr float kLaneHeaderHeight = 18.0f;
inline constexpr float kSpanRowHeight = 18.0f;
inline constexpr float kPlotHeight = 48.0f;
inline constexpr float kLaneGap = 4.0f;

enum class LaneKind : std::uint8_t { kSpans, kCounter, kMemory };

struct Lane {
  LaneKind kind = LaneKind::kSpans;
  std::uint32_t track = 0;
  std::string label;
  float top = 0;           // from the top of the lane area, before vertical scrolling
  std::uint32_t rows = 0;  // span depths, or 1 for a plot
  double plot_max = 0;     // largest plotted value, the plot's full height
  // Bytes allocated after each memory event, replayed from the allocations and frees when the
  // trace records no allocator totals (Kineto's legacy schema); empty otherwise. 32 bits a value
  // while every total stays below 4 GiB, as the trace holds its own totals.
  trace::WideningColumn replayed_allocated;
  bool hidden = false;  // its rank's group is collapsed

  float height() const;
  float row_top(std::size_t row) const { return top + kLaneHeaderHeight + row * row_height(); }
  float row_height() const { return kind == LaneKind::kSpans ? kSpanRowHeight : kPlotHeight; }
};

// The lanes of one rank, when the trace holds several (`tscope view` of a run's traces): a header
// row above them that folds them away.
struct LaneGroup {
  std::int32_t rank = -1;
  std::string label;
  float top = 0;
  bool collapsed = false;
  std::uint32_t first_lane = 0;
  std::uint32_t lane_count = 0;
};

class LaneLayout {
 public:
  explicit LaneLayout(const trace::Trace& trace);

  const std::vector<Lane>& lanes() const { return lanes_; }
  float content_height() const { return content_height_; }
  // The lane of `track`, or nullptr for a track with nothing to draw or in a collapsed group.
  const Lane* lane_of_track(std::uint32_t track) const;

  // Empty unless the lanes belong to two ranks or more.
  const std::vector<LaneGroup>& groups() const { return groups_; }
  // The group whose header row holds `y` (lane-area coordinates), if any.
  std::optional<std::size_t> group_at(float y) const;
  void set_collapsed(std::size_t group, bool collapsed);
  // Expands the group holding `track`, so that a selected event can be seen.
  void reveal_track(std::uint32_t track);

 private:
  void place();

  std::vector<Lane> lanes_;
  std::vector<LaneGroup> groups_;
  std::vector<std::uint32_t> lane_by_track_;
  float content_height_ = 0;
};

}  // namespace tscope::gui
