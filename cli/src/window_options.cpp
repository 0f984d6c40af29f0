#include "window_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "tscope/profiler/step_names.h"

namespace tscope::cli {
namespace {

struct Unit {
  std::string_view suffix;
  double nanoseconds;
};
// Longest suffix first, so "ms" is not read as "s".
constexpr Unit kUnits[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

std::pair<std::string_view, std::string_view> split_range(std::string_view text,
                                                          std::string_view form) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
    throw WindowSyntaxError(fmt::format("'{}' is not a range of the form {}", text, form));
  }
  return {text.substr(0, colon), text.substr(colon + 1)};
}

std::int64_t parse_integer(std::string_view text, std::string_view whole) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw WindowSyntaxError(fmt::format("'{}' in '{}' is not a step number", text, whole));
  }
  return value;
}

}  // namespace

trace::TimeNs parse_duration(std::string_view text) {
  double scale = 1e9;  // seconds when no unit is given
  std::string_view number = text;
  for (const Unit& unit : kUnits) {
    if (text.ends_with(unit.suffix)) {
      scale = unit.nanoseconds;
      number = text.substr(0, text.size() - unit.suffix.size());
      break;
    }
  }
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  const double nanoseconds = value * scale;
  if (number.empty() || error != std::errc() || end != number.data() + number.size() ||
      !std::isfinite(nanoseconds) || nanoseconds < 0 ||
      nanoseconds > static_cast<double>(std::numeric_limits<trace::TimeNs>::max()) / 2) {
    throw WindowSyntaxError(fmt::format(
        "'{}' is not a duration (a number of seconds, or with a unit: ns, us, ms, s)", text));
  }
  return static_cast<trace::TimeNs>(std::llround(nanoseconds));
}

TimeRange parse_time_range(std::string_view text) {
  const auto [start, end] = split_range(text, "START:END (e.g. 1.5s:2s, 200ms:, :3)");
  TimeRange range;
  if (!start.empty()) range.start = parse_duration(start);
  if (!end.empty()) range.end = parse_duration(end);
  if (range.start && range.end && *range.end < *range.start) {
    throw WindowSyntaxError(fmt::format("range '{}' ends before it starts", text));
  }
  return range;
}

StepRange parse_step_range(std::string_view text) {
  const auto [first, last] = split_range(text, "A:B (steps A to B, e.g. 3:5)");
  const StepRange range{parse_integer(first, text), parse_integer(last, text)};
  if (range.last < range.first) {
    throw WindowSyntaxError(fmt::format("step range '{}' ends before it starts", text));
  }
  return range;
}

trace::CaptureWindow window_in(const trace::Trace& trace, const TimeRange& range) {
  const trace::TimeNs begin = trace.begin_time();
  const trace::TimeNs end = trace.end_time();
  return {range.start ? std::min(end, begin + *range.start) : begin,
          range.end ? std::min(end, begin + *range.end) : end};
}

trace::CaptureWindow window_of_steps(const trace::Trace& trace, const StepRange& range) {
  std::optional<trace::CaptureWindow> window;
  std::set<std::int64_t> numbers;
  for (const trace::Track& track : trace.tracks()) {
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t span = 0; span < spans.size(); ++span) {
      const std::optional<std::int64_t> number =
          profiler::step_number(trace.string(spans.name[span]));
      if (!number) continue;
      numbers.insert(*number);
      if (*number < range.first || *number > range.last) continue;
      if (!window) window = trace::CaptureWindow{spans.start[span], spans.end(span)};
      window->begin = std::min(window->begin, spans.start[span]);
      window->end = std::max(window->end, spans.end(span));
    }
  }
  if (!window) {
    throw WindowSyntaxError(fmt::format(
        "the trace has no step numbered {} to {} (its steps: {})", range.first, range.last,
        numbers.empty() ? "none" : fmt::format("{}", fmt::join(numbers, ", "))));
  }
  return *window;
}

trace::CaptureWindow window_of_range(const trace::Trace& trace, std::string_view name) {
  std::optional<trace::CaptureWindow> first;
  for (const trace::Track& track : trace.tracks()) {
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t span = 0; span < spans.size(); ++span) {
      if (trace.string(spans.name[span]) != name) continue;
      // Spans are sorted by start, so the track's first match is its earliest.
      if (!first || spans.start[span] < first->begin) first = {spans.start[span], spans.end(span)};
      break;
    }
  }
  if (!first) throw WindowSyntaxError(fmt::format("the trace has no range named '{}'", name));
  return *first;
}

}  // namespace tscope::cli
