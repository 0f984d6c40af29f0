// Span rows of a lane: per depth, the visible window by binary search, wide spans drawn one by
// one, and runs of spans narrower than kMinSpanPixels folded into one block labelled with their
// count, the way Tracy's timeline does it.

#include <algorithm>
#include <charconv>
#include <cmath>

#include "frame_parts.h"

namespace tscope::gui::detail {

namespace {

constexpr float kMinLabelPixels = 24.0f;

struct LevelContext {
  const trace::Trace& trace;
  const trace::Track& track;
  const Lane& lane;
  const TimeView& view;
  float y0, y1;
};

Color span_color(const LevelContext& level, std::uint32_t span) {
  const trace::SpanColumns& spans = level.track.spans();
  const trace::Category category = spans.category[span];
  if (category == trace::Category::kMemcpy) {
    const trace::SpanDetail* detail = level.trace.span_detail(level.lane.track, span);
    if (detail != nullptr && detail->copy != trace::kNoIndex) {
      return copy_color(level.trace.copies()[detail->copy].direction);
    }
  }
  return category_color(category);
}

void draw_span(const LevelContext& level, std::uint32_t span, TimelineFrame& frame) {
  const trace::SpanColumns& spans = level.track.spans();
  const float x0 = clamped_x(level.view, spans.start[span]);
  const float x1 = std::max(clamped_x(level.view, spans.end(span)), x0 + 1.0f);
  frame.rects.push_back({x0, level.y0, x1, level.y1, span_color(level, span)});
  frame.boxes.push_back({x0, level.y0, x1, level.y1,
                         trace::EventRef{trace::EventKind::kSpan, level.lane.track, span}, 1,
                         spans.start[span], spans.end(span)});
  const float visible_left = std::max(x0, level.view.left());
  if (std::min(x1, level.view.right()) - visible_left >= kMinLabelPixels) {
    frame.add_text(visible_left + 3, level.y0 + 2, x1 - 2, kSpanTextColor,
                   level.trace.string(spans.name[span]));
  }
}

void draw_folded(const LevelContext& level, std::uint32_t first, std::uint32_t count, TimeNs end,
                 TimelineFrame& frame) {
  const trace::SpanColumns& spans = level.track.spans();
  const float x0 = clamped_x(level.view, spans.start[first]);
  const float x1 = std::max(clamped_x(level.view, end), x0 + kMinSpanPixels);
  frame.rects.push_back({x0, level.y0, x1, level.y1, kFoldedColor});
  frame.boxes.push_back({x0, level.y0, x1, level.y1,
                         trace::EventRef{trace::EventKind::kSpan, level.lane.track, first}, count,
                         spans.start[first], end});
  char digits[16];
  const auto written = std::to_chars(digits, digits + sizeof digits, count).ptr;
  const float visible_left = std::max(x0, level.view.left());
  if (std::min(x1, level.view.right()) - visible_left >= kMinLabelPixels) {
    frame.add_text(visible_left + 3, level.y0 + 2, x1 - 2, kSpanTextColor,
                   std::string_view(digits, static_cast<std::size_t>(written - digits)));
  }
}

// The first span in [from, last) of one depth whose end is at or after `time`. Spans at one depth
// are disjoint and in time order, so it is the last one starting before `time` when that one is
// still open then, and else the first starting at or after it; the search reads starts, one
// column a probe, where ends (start plus duration) would read two.
template <typename Iterator>
Iterator first_ending_at_or_after(Iterator from, Iterator last, TimeNs time,
                                  const trace::SpanColumns& spans) {
  const auto starts_before = [&](std::uint32_t span, TimeNs t) { return spans.start[span] < t; };
  const Iterator starting = gallop_lower_bound(from, last, time, starts_before);
  if (starting != from && spans.end(*(starting - 1)) >= time) return starting - 1;
  return starting;
}

}  // namespace

void draw_span_lane(const FrameRequest& request, const Lane& lane, TimelineFrame& frame) {
  const trace::Track& track = request.trace->track(lane.track);
  const trace::SpanColumns& spans = track.spans();
  const TimeView& view = request.view;
  const TimeRange range = view.range();
  const auto min_length =
      std::max<TimeNs>(1, static_cast<TimeNs>(std::ceil(kMinSpanPixels * view.ns_per_pixel())));
  for (std::size_t depth = 0; depth < lane.rows; ++depth) {
    const float y0 = request.area.screen_y(lane.row_top(depth));
    const float y1 = y0 + kSpanRowHeight - 1;
    if (y1 <= request.area.lanes_top()) continue;
    if (y0 >= request.area.bottom) break;
    const LevelContext level{*request.trace, track, lane, view, y0, y1};
    const auto spans_here = track.spans_at_depth(depth);
    auto at = spans_here.begin() +
              static_cast<std::ptrdiff_t>(track.first_span_ending_after(depth, range.begin));
    while (at != spans_here.end() && spans.start[*at] < range.end) {
      const std::uint32_t first = *at;
      if (static_cast<TimeNs>(spans.duration[first]) >= min_length) {
        draw_span(level, first, frame);
        ++at;
        continue;
      }
      // Spans at one depth never overlap, so their ends are sorted: every span ending within
      // min_length of the run's end is narrow and joins the run in one search. A following
      // narrow span after a gap under min_length extends it; each round advances the run's end
      // by at least min_length, so a row costs at most its width in pixels / 3 searches.
      TimeNs run_end = spans.end(first);
      auto next = at + 1;
      while (run_end < range.end) {
        next = first_ending_at_or_after(next, spans_here.end(), run_end + min_length, spans);
        if (next != at + 1) run_end = std::max(run_end, spans.end(*(next - 1)));
        if (next == spans_here.end()) break;
        const std::uint32_t candidate = *next;
        if (spans.start[candidate] - run_end >= min_length ||
            static_cast<TimeNs>(spans.duration[candidate]) >= min_length) {
          break;
        }
        run_end = spans.end(candidate);
        ++next;
      }
      const auto count = static_cast<std::uint32_t>(next - at);
      if (count == 1) {
        draw_span(level, first, frame);
      } else {
        draw_folded(level, first, count, run_end, frame);
      }
      at = next;
    }
  }
}

}  // namespace tscope::gui::detail
