#include "tscope/gui/timeline_session.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "tscope/analyzer/errors.h"
#include "tscope/gui/hit_test.h"
#include "tscope/gui/selection.h"
#include "tscope/trace/time_range.h"

namespace tscope::gui {

namespace {

constexpr double kMargin = 0.05;

}  // namespace

TimelineSession::TimelineSession(trace::Trace trace, std::string source,
                                 std::vector<analyzer::Finding> more_findings)
    : trace_(std::move(trace)),
      layout_(trace_),
      origin_(trace_.begin_time()),
      view_({trace_.begin_time(), trace_.end_time()}, 0, 1),
      more_findings_(std::move(more_findings)) {
  pending_report_ = std::async(std::launch::async, [this, source = std::move(source)] {
    analyzer::ReportOptions options;
    options.analysis.keep_path_segments = true;  // for the critical-path highlight
    return analyzer::run_report(trace_, options, source);
  });
  steps_ = analyzer::find_steps(trace_);
  fit_all();
}

bool TimelineSession::analysis_running() const {
  return pending_report_.valid() &&
         pending_report_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

void TimelineSession::wait_for_analysis() {
  if (pending_report_.valid()) pending_report_.wait();
  report();
}

const std::optional<analyzer::Report>& TimelineSession::report() {
  if (pending_report_.valid() && !analysis_running()) {
    try {
      report_ = pending_report_.get();
      for (analyzer::Finding& finding : more_findings_)
        report_->findings.push_back(std::move(finding));
      more_findings_.clear();
      analyzer::sort_by_cost(report_->findings);
    } catch (const analyzer::AnalyzerError& error) {
      report_error_ = error.what();
    }
  }
  return report_;
}

void TimelineSession::set_screen_rect(const ScreenRect& rect) {
  view_.set_geometry(rect.x, rect.width);
  area_.top = rect.y;
  area_.bottom = rect.bottom();
  pan(0, 0);
}

const TimelineFrame& TimelineSession::build_frame() {
  FrameRequest request;
  request.trace = &trace_;
  request.layout = &layout_;
  request.view = view_;
  request.area = area_;
  request.origin = origin_;
  request.selection = selection_ ? &*selection_ : nullptr;
  request.selection_flows = &selection_flows_;
  if (critical_path_shown_ && report_ && report_->critical_path())
    request.critical_path = &report_->critical_path()->segments;
  build_timeline_frame(request, frame_);
  return frame_;
}

void TimelineSession::fit_all() {
  const TimeNs begin = trace_.begin_time();
  show_range({begin, std::max(trace_.end_time(), begin + 1)});
}

void TimelineSession::show_range(TimeRange range) {
  const auto margin = static_cast<TimeNs>(static_cast<double>(range.length()) * kMargin);
  view_.show({range.begin - margin, range.end + margin});
}

void TimelineSession::pan(double dx, float dy) {
  view_.pan_pixels(dx);
  const float visible = area_.bottom - area_.lanes_top();
  const float most = std::max(0.0f, layout_.content_height() - visible);
  area_.scroll = std::clamp(area_.scroll - dy, 0.0f, most);
}

void TimelineSession::scroll_to_track(std::uint32_t track) {
  const Lane* lane = layout_.lane_of_track(track);
  if (lane == nullptr) return;
  const float visible = area_.bottom - area_.lanes_top();
  if (lane->top >= area_.scroll && lane->top + lane->height() <= area_.scroll + visible) return;
  area_.scroll = lane->top;
  pan(0, 0);
}

void TimelineSession::click(float x, float y) {
  // A rank's header row folds or unfolds that rank's lanes.
  if (const auto group = layout_.group_at(y - area_.lanes_top() + area_.scroll);
      group && y >= area_.lanes_top() && y < area_.bottom) {
    layout_.set_collapsed(*group, !layout_.groups()[*group].collapsed);
    pan(0, 0);
    return;
  }
  const HitBox* box = box_at(frame_, x, y);
  if (box == nullptr) {
    select(std::nullopt);
  } else if (box->count > 1) {
    show_range({box->begin, box->end});
  } else {
    select(box->first);
  }
}

void TimelineSession::select(std::optional<trace::EventRef> event) {
  selection_ = event;
  if (event) layout_.reveal_track(event->track);
  selection_flows_ = event ? gui::selection_flows(trace_, *event) : std::vector<trace::Flow>{};
}

TimeRange TimelineSession::event_range(trace::EventRef event) const {
  const trace::Track& track = trace_.track(event.track);
  switch (event.kind) {
    case trace::EventKind::kSpan:
      return {track.spans().start.at(event.index), track.spans().end(event.index)};
    case trace::EventKind::kInstant: {
      const TimeNs time = track.instants().time.at(event.index);
      return {time, time + 1};
    }
    case trace::EventKind::kCounterSample: {
      const TimeNs time = track.counters().time.at(event.index);
      return {time, time + 1};
    }
    case trace::EventKind::kMemory: {
      const TimeNs time = track.memory().time.at(event.index);
      return {time, time + 1};
    }
  }
  return {origin_, origin_ + 1};
}

std::optional<TimeRange> TimelineSession::selection_range() const {
  if (!selection_) return std::nullopt;
  return event_range(*selection_);
}

void TimelineSession::zoom_to_selection() {
  if (!selection_) return;
  show_range(event_range(*selection_));
  scroll_to_track(selection_->track);
}

void TimelineSession::show_finding(std::size_t index) {
  if (!report() || index >= report_->findings.size()) return;
  const std::vector<trace::EventRef>& evidence = report_->findings[index].evidence;
  if (evidence.empty()) return;
  TimeRange covered{std::numeric_limits<TimeNs>::max(), std::numeric_limits<TimeNs>::min()};
  for (const trace::EventRef& event : evidence) {
    const TimeRange range = event_range(event);
    covered = {std::min(covered.begin, range.begin), std::max(covered.end, range.end)};
  }
  show_range(covered);
  select(evidence.front().kind == trace::EventKind::kSpan ||
                 evidence.front().kind == trace::EventKind::kInstant
             ? std::optional(evidence.front())
             : std::nullopt);
  scroll_to_track(evidence.front().track);
}

void TimelineSession::show_step(std::size_t index) {
  if (index >= steps_.steps.size()) return;
  show_range({steps_.steps[index].start, steps_.steps[index].end});
}

void TimelineSession::search(const std::string& query) {
  search_query_ = query;
  search_.emplace(trace_, query);
  search_position_.reset();
}

void TimelineSession::search_step(bool forward) {
  if (!search_ || search_->matches().empty()) return;
  const std::size_t count = search_->matches().size();
  if (!search_position_) {
    const std::size_t first = search_->first_at_or_after(view_.range().begin);
    search_position_ = forward ? first : (first + count - 1) % count;
  } else {
    search_position_ =
        forward ? (*search_position_ + 1) % count : (*search_position_ + count - 1) % count;
  }
  const trace::EventRef event = search_->matches()[*search_position_];
  select(event);
  center_on(event);
}

void TimelineSession::center_on(trace::EventRef event) {
  const TimeRange range = event_range(event);
  // Keep the zoom unless the event would not fit; a span across most of the time range a trace
  // holds gets all of it (its length and a fifth more would overflow).
  const TimeNs widest = 2 * trace::kMaxAbsTimeNs;
  const TimeNs fifth = range.length() / 5;
  const TimeNs fitting = range.length() < widest - fifth ? range.length() + fifth : widest;
  const TimeNs length = std::max(view_.range().length(), fitting);
  const TimeNs middle = range.begin + range.length() / 2;
  view_.show({middle - length / 2, middle - length / 2 + length});
  scroll_to_track(event.track);
}

void TimelineSession::compute_statistics_for_view() {
  statistics_ =
      StatisticsTable{"visible range", view_.range(), span_statistics(trace_, view_.range())};
}

void TimelineSession::compute_statistics_for_selection() {
  const auto range = selection_range();
  if (!range) return;
  statistics_ = StatisticsTable{"selection", *range, span_statistics(trace_, *range)};
}

}  // namespace tscope::gui
