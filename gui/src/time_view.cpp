#include "tscope/gui/time_view.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

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
  return range_.begin + static_cast<TimeNs>(std::llround((x - left_) * ns_per_pixel()));
}

void TimeView::show(TimeRange range) {
  if (range.length() < kMinLength) {
    const TimeNs middle = range.begin + range.length() / 2;
    range = {middle - kMinLength / 2, middle - kMinLength / 2 + kMinLength};
  }
  range_ = range;
}

void TimeView::zoom_around(double x, double factor) {
  const TimeNs anchor = time_at(x);
  const double before = static_cast<double>(anchor - range_.begin);
  const double after = static_cast<double>(range_.end - anchor);
  show({anchor - static_cast<TimeNs>(std::llround(before * factor)),
        anchor + static_cast<TimeNs>(std::llround(after * factor))});
}

void TimeView::pan_pixels(double pixels) {
  const auto shift = static_cast<TimeNs>(std::llround(pixels * ns_per_pixel()));
  range_ = {range_.begin - shift, range_.end - shift};
}

void TimeView::set_geometry(float left, float width) {
  left_ = left;
  width_ = std::max(width, 1.0f);
}

}  // namespace tscope::gui
