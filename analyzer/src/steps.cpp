#include "tscope/analyzer/steps.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>

#include "trace_names.h"
#include "tscope/analyzer/errors.h"
#include "tscope/report/name_regex.h"
#include "tscope/trace/capture_window.h"

namespace tscope::analyzer {

double StepSet::total_ns() const {
  double total = 0;
  for (const Step& step : steps)
    total += static_cast<double>(step.end - step.start);
  return total;
}

double StepSet::mean_ns() const {
  return steps.empty() ? 0 : total_ns() / static_cast<double>(steps.size());
}

double StepSet::min_ns() const {
  double least = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double length = static_cast<double>(steps[i].end - steps[i].start);
    least = i == 0 ? length : std::min(least, length);
  }
  return least;
}

double StepSet::max_ns() const {
  double most = 0;
  for (const Step& step : steps)
    most = std::max(most, static_cast<double>(step.end - step.start));
  return most;
}

double StepSet::stddev_ns() const {
  if (steps.size() < 2) return 0;
  const double mean = mean_ns();
  double sum = 0;
  for (const Step& step : steps) {
    const double deviation = static_cast<double>(step.end - step.start) - mean;
    sum += deviation * deviation;
  }
  return std::sqrt(sum / static_cast<double>(steps.size() - 1));
}

std::size_t StepSet::step_at(TimeNs time) const {
  const auto after = std::upper_bound(steps.begin(), steps.end(), time,
                                      [](TimeNs t, const Step& step) { return t < step.start; });
  if (after == steps.begin()) return steps.size();
  const std::size_t index = static_cast<std::size_t>(after - steps.begin()) - 1;
  return time < steps[index].end ? index : steps.size();
}

StepSet find_steps(const trace::Trace& trace, const std::optional<std::string>& name_filter) {
  std::optional<NameRegex> filter;
  if (name_filter) {
    try {
      filter.emplace(*name_filter);
    } catch (const NameRegexError& error) {
      throw AnalyzerError("--steps '" + *name_filter +
                          "' is not a valid regular expression: " + error.what());
    }
  }

  StepSet result;
  // Ties go to the thread with more spans: Kineto repeats ProfilerStep#N on a GPU annotation row
  // that holds little else, while the training thread holds the ops.
  std::pair<std::size_t, std::size_t> best{0, 0};
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    std::size_t count = 0;
    for (std::size_t i = 0; i < spans.size(); ++i)
      count += spans.category[i] == trace::Category::kStep;
    const std::pair<std::size_t, std::size_t> rank{count, spans.size()};
    if (count == 0 || rank <= best) continue;
    best = rank;
    result.track = track_index;
  }

  // A trace captured or cut to a window holds the steps around its edges only in part: per-step
  // figures count the steps wholly inside it.
  const std::optional<trace::CaptureWindow> window = trace::capture_window(trace.metadata());
  if (result.track != trace::kNoIndex) {
    const trace::SpanColumns& spans = trace.track(result.track).spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != trace::Category::kStep) continue;
      if (window && !window->contains(spans.start[i], spans.end(i))) continue;
      // Nested or overlapping step ranges would count time twice; the outer one stands.
      if (!result.steps.empty() && spans.start[i] < result.steps.back().end) continue;
      const std::string_view name = trace.string(spans.name[i]);
      if (filter && !filter->found_in(name)) continue;
      result.steps.push_back({std::string(name), spans.start[i], spans.end(i),
                              trace::EventRef{trace::EventKind::kSpan, result.track, i}});
    }
  }
  // No step ranges (or none wholly inside the window): the whole trace, or window, is one step.
  if (result.steps.empty() && !filter) {
    result.whole_trace = true;
    result.steps.push_back({"whole trace", window ? window->begin : trace.begin_time(),
                            window ? window->end : trace.end_time(), std::nullopt});
  }
  if (result.steps.empty()) {
    throw AnalyzerError(filter ? "--steps '" + *name_filter + "' matches no step of the trace"
                               : "the trace has no steps");
  }
  return result;
}

}  // namespace tscope::analyzer
