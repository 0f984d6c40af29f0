#pragma once
// One trace open in the viewer and everything the user does to it, without any window: the view
// and scrolling, selection and its flows, clicks, zoom to selection / fit all / steps / findings,
// search with next and previous, statistics. The ImGui layer only forwards input and draws.

#include <cstddef>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "tscope/analyzer/report.h"
#include "tscope/gui/lane_layout.h"
#include "tscope/gui/span_search.h"
#include "tscope/gui/span_statistics.h"
#include "tscope/gui/timeline_frame.h"
#include "tscope/gui/window_layout.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

// What the statistics table counts: the visible range or the selected span's time.
struct StatisticsTable {
  std::string scope;
  TimeRange range;
  std::vector<SpanStatistic> rows;
};

class TimelineSession {
 public:
  // Lays the trace out and starts the analyzer's report for the findings panel on a thread of
  // its own: at 10M events it takes seconds, and the timeline is usable meanwhile. Findings made
  // elsewhere (the multi-rank analysis of merged ranks, evidence already in this trace's
  // numbering) join the report's, ranked with them.
  TimelineSession(trace::Trace trace, std::string source,
                  std::vector<analyzer::Finding> more_findings = {});
  // The analysis thread reads the trace this session owns: a session stays where it was made.
  TimelineSession(const TimelineSession&) = delete;
  TimelineSession& operator=(const TimelineSession&) = delete;

  const trace::Trace& trace() const { return trace_; }
  const LaneLayout& layout() const { return layout_; }
  TimeNs origin() const { return origin_; }
  const TimeView& view() const { return view_; }
  const TimelineArea& area() const { return area_; }

  // Places the timeline on screen; call when the window's size changes.
  void set_screen_rect(const ScreenRect& rect);
  const TimelineFrame& build_frame();
  const TimelineFrame& frame() const { return frame_; }

  // Navigation. Zooming to a range leaves a margin of 5% on each side.
  void fit_all();
  void show_range(TimeRange range);
  // Shows exactly `range`, no margin (`tscope view --view`).
  void set_range(TimeRange range) { view_.show(range); }
  void zoom_around(double x, double factor) { view_.zoom_around(x, factor); }
  void pan(double dx, float dy);
  void scroll_to_track(std::uint32_t track);

  // A click at screen (x, y): selects the span there, zooms into a folded run, or clears the
  // selection on empty space.
  void click(float x, float y);
  void select(std::optional<trace::EventRef> event);
  const std::optional<trace::EventRef>& selection() const { return selection_; }
  const std::vector<trace::Flow>& selection_flows() const { return selection_flows_; }
  // The selected span's time, if a span is selected.
  std::optional<TimeRange> selection_range() const;
  void zoom_to_selection();

  bool analysis_running() const;
  // Blocks until the report is ready (screenshots, tests).
  void wait_for_analysis();
  // The report once the analysis has finished; empty while it runs or when it failed.
  const std::optional<analyzer::Report>& report();
  const std::string& report_error() const { return report_error_; }
  // Frames the finding's evidence and selects its first event.
  void show_finding(std::size_t index);
  // Marks the report's critical path under the spans on it (once the report is ready).
  void show_critical_path(bool shown) { critical_path_shown_ = shown; }
  bool critical_path_shown() const { return critical_path_shown_; }
  // Training steps for the step selector (the whole trace as one when it has none).
  const analyzer::StepSet& steps() const { return steps_; }
  void show_step(std::size_t index);

  void search(const std::string& query);
  const std::string& search_query() const { return search_query_; }
  std::size_t search_match_count() const { return search_ ? search_->matches().size() : 0; }
  std::optional<std::size_t> search_position() const { return search_position_; }
  // Moves to the next (or previous) match, wrapping, selects it and centres the view on it.
  void search_step(bool forward);

  void compute_statistics_for_view();
  void compute_statistics_for_selection();
  const std::optional<StatisticsTable>& statistics() const { return statistics_; }

 private:
  void center_on(trace::EventRef event);
  TimeRange event_range(trace::EventRef event) const;

  trace::Trace trace_;
  LaneLayout layout_;
  TimeNs origin_;
  TimeView view_;
  TimelineArea area_;
  TimelineFrame frame_;
  std::optional<trace::EventRef> selection_;
  std::vector<trace::Flow> selection_flows_;
  std::optional<analyzer::Report> report_;
  std::string report_error_;
  std::vector<analyzer::Finding> more_findings_;
  analyzer::StepSet steps_;
  std::string search_query_;
  std::optional<SpanSearch> search_;
  std::optional<std::size_t> search_position_;
  std::optional<StatisticsTable> statistics_;
  bool critical_path_shown_ = false;
  // Last, so it is destroyed (waiting for the thread) before the trace the thread reads.
  std::future<analyzer::Report> pending_report_;
};

}  // namespace tscope::gui
