#include "tscope/gui/time_view.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tscope/trace/time_range.h"

namespace tscope::gui {

namespace {

TimeNs parse_nanoseconds(std::string_view text, const std::string& whole) {
  TimeNs value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw std::invalid_argument("time range '" + whole +
                                "' is not START:END in nanoseconds from the trace's start");
  }
  return value;
}

// `value` rounded to nanoseconds, or the nearer bound when it lies outside [least, most] (or is
// NaN): a double as large as INT64_MAX does not round into TimeNs.
TimeNs rounded_within(double value, TimeNs least, TimeNs most) {
  if (!(value > static_cast<double>(least))) return least;
  if (!(value < static_cast<double>(most))) return most;
  return std::clamp(static_cast<TimeNs>(std::llround(value)), least, most);
}

}  // namespace

TimeRange parse_time_range(const std::string& text, TimeNs origin) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw std::invalid_argument("time range '" + text + "' has no ':' between START and END");
  }
  const TimeNs begin = parse_nanoseconds(std::string_view(text).substr(0, colon), text);
  const TimeNs end = parse_nanoseconds(std::string_view(text).substr(colon + 1), text);
  if (end <= begin) {
    throw std::invalid_argument("time range '" + text + "' must end after it starts");
  }
  // Checked before the addition, which could overflow: `origin` is a time of the trace.
  if (begin < -trace::kMaxAbsTimeNs - origin || end > trace::kMaxAbsTimeNs - origin) {
    throw std::invalid_argument("time range '" + text +
                                "' reaches beyond the times a trace can hold (2^62 ns either way)");
  }
  return {origin + begin, origin + end};
}

TimeView::TimeView(TimeRange range, float left, float width)
    : left_(left), width_(std::max(width, 1.0f)) {
  show(range);
}

double TimeView::x_of(TimeNs time) const {
  return left_ + static_cast<double>(time - range_.begin) / ns_per_pixel();
}

TimeNs TimeView::time_at(double x) const {
  return range_.begin + rounded_within((x - left_) * ns_per_pixel(),
                                       -trace::kMaxAbsTimeNs - range_.begin,
                                       trace::kMaxAbsTimeNs - range_.begin);
}

void TimeView::show(TimeRange range) {
  range.begin = std::clamp(range.begin, -trace::kMaxAbsTimeNs, trace::kMaxAbsTimeNs - kMinLength);
  range.end = std::clamp(range.end, -trace::kMaxAbsTimeNs + kMinLength, trace::kMaxAbsTimeNs);
  if (range.length() < kMinLength) {
    const TimeNs middle = range.begin + range.length() / 2;
    const TimeNs begin = std::clamp(middle - kMinLength / 2, -trace::kMaxAbsTimeNs,
                                    trace::kMaxAbsTimeNs - kMinLength);
    range = {begin, begin + kMinLength};
  }
  range_ = range;
}

void TimeView::zoom_around(double x, double factor) {
  const TimeNs anchor = time_at(x);
  // Each new end at most as far from the anchor as the edge of the widest window.
  const TimeNs before = rounded_within(static_cast<double>(anchor - range_.begin) * factor, 0,
                                       std::max<TimeNs>(anchor + trace::kMaxAbsTimeNs, 0));
  const TimeNs after = rounded_within(static_cast<double>(range_.end - anchor) * factor, 0,
                                      std::max<TimeNs>(trace::kMaxAbsTimeNs - anchor, 0));
  show({anchor - before, anchor + after});
}

void TimeView::pan_pixels(double pixels) {
  // The window keeps its length and stops at the edges of the widest window.
  const TimeNs least = range_.begin - (trace::kMaxAbsTimeNs - range_.length());
  const TimeNs most = range_.begin + trace::kMaxAbsTimeNs;
  const TimeNs shift = rounded_within(pixels * ns_per_pixel(), least, most);
  range_ = {range_.begin - shift, range_.end - shift};
}

void TimeView::set_geometry(float left, float width) {
  left_ = left;
  width_ = std::max(width, 1.0f);
}

}  // namespace tscope::gui
