#pragma once
// The visible time window of the timeline and its mapping to screen pixels, with the zoom and pan
// arithmetic that mouse, keyboard, findings and search navigation all go through.

#include <string>

#include "tscope/trace/records.h"

namespace tscope::gui {

using trace::TimeNs;

struct TimeRange {
  TimeNs begin = 0;
  TimeNs end = 0;

  TimeNs length() const { return end - begin; }
  bool operator==(const TimeRange&) const = default;
};

// Parses "START:END" in nanoseconds relative to `origin` (the trace's first event), as
// `tscope view --view` takes it. Throws std::invalid_argument naming the text when malformed.
TimeRange parse_time_range(const std::string& text, TimeNs origin);

// The window never reaches beyond the time range a trace holds (trace/time_range.h, 146 years
// either way): zooming out and panning stop there, so the distance from the window's start to any
// event's time fits TimeNs.
class TimeView {
 public:
  // The narrowest window a zoom can reach: a few nanoseconds across the whole width.
  static constexpr TimeNs kMinLength = 10;

  TimeView(TimeRange range, float left, float width);

  const TimeRange& range() const { return range_; }
  float left() const { return left_; }
  float width() const { return width_; }
  float right() const { return left_ + width_; }
  double ns_per_pixel() const { return static_cast<double>(range_.length()) / width_; }

  // Screen x of `time`; double because deep zoom into a long trace needs more than float's
  // 24 bits before the result is clamped to the screen.
  double x_of(TimeNs time) const;
  // The time under screen x, cut to the widest window.
  TimeNs time_at(double x) const;

  // Shows `range`, cut to the widest window and widened to the narrowest.
  void show(TimeRange range);
  // factor < 1 zooms in; the time under screen x stays under x.
  void zoom_around(double x, double factor);
  // Moves the content right by `pixels` (a drag to the right shows earlier time).
  void pan_pixels(double pixels);
  void set_geometry(float left, float width);

 private:
  TimeRange range_;
  float left_;
  float width_;
};

}  // namespace tscope::gui
