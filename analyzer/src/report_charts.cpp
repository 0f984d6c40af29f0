#include "tscope/analyzer/report_charts.h"

#include <algorithm>

#include "launch_queue.h"
#include "memory_replay.h"
#include "oom_events.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/report/name_regex.h"

namespace tscope::analyzer {
namespace {

// Enough bars to see a trend and an outlier, few enough to stay readable and cheap: each step's
// breakdown is one more pass over the trace.
constexpr std::size_t kChartSteps = 24;
constexpr std::size_t kMemoryBuckets = 400;
constexpr std::size_t kQueueBuckets = 400;

std::vector<StepBreakdown> step_breakdowns(const AnalysisContext& context, std::size_t& count) {
  const StepSet& steps = context.steps();
  count = steps.steps.size();
  std::vector<StepBreakdown> chosen;
  if (steps.whole_trace) return chosen;
  const std::size_t shown = std::min(kChartSteps, count);
  for (std::size_t i = 0; i < shown; ++i) {
    const Step& step = steps.steps[i * count / shown];
    // Steps that share a name are one bar; the first is enough.
    if (!chosen.empty() && chosen.back().name == step.name) continue;
    AnalysisOptions one = context.options();
    one.step_filter = NameRegex::exactly(step.name);
    chosen.push_back({step.name, compute_time_breakdown(AnalysisContext(context.trace(), one))});
  }
  return chosen;
}

void memory_samples(const AnalysisContext& context, ReportCharts& charts) {
  const trace::Trace& trace = context.trace();
  MemoryReplay replay(trace, context.memory_order());
  if (replay.empty()) return;
  const double first = static_cast<double>(replay.time_of(0));
  const double span =
      std::max(1.0, static_cast<double>(replay.time_of(replay.event_count() - 1)) - first);
  charts.memory.assign(kMemoryBuckets, {});
  for (std::size_t bucket = 0; bucket < kMemoryBuckets; ++bucket)
    charts.memory[bucket].time_ns = span * static_cast<double>(bucket) / kMemoryBuckets;
  std::vector<bool> touched(kMemoryBuckets, false);
  double live_before = 0;
  for (std::size_t position = 0; position < replay.event_count(); ++position) {
    replay.advance_to(position + 1);
    const double time = static_cast<double>(replay.time_of(position)) - first;
    const double live = static_cast<double>(replay.live_bytes());
    const auto bucket =
        std::min(kMemoryBuckets - 1, static_cast<std::size_t>(time / span * kMemoryBuckets));
    MemorySample& sample = charts.memory[bucket];
    sample.live_bytes = std::max({sample.live_bytes, live, live_before});
    touched[bucket] = true;
    if (live > charts.memory_peak.live_bytes) charts.memory_peak = {time, live};
    live_before = live;
  }
  // A bucket with no event holds what the last event left.
  for (std::size_t bucket = 1; bucket < kMemoryBuckets; ++bucket) {
    if (!touched[bucket]) charts.memory[bucket].live_bytes = charts.memory[bucket - 1].live_bytes;
  }
  for (const OomEvent& oom : out_of_memory_events(trace))
    charts.oom_times_ns.push_back(static_cast<double>(oom.time) - first);
}

void queue_samples(const AnalysisContext& context, ReportCharts& charts) {
  const trace::Trace& trace = context.trace();
  const std::vector<StreamActivities>& streams = context.stream_activities();
  bool any = false;
  trace::TimeNs first = 0;
  trace::TimeNs last = 0;
  for (const StreamActivities& stream : streams) {
    for_each_queue_change(stream, [&](trace::TimeNs time, int, const StreamActivity&) {
      first = any ? std::min(first, time) : time;
      last = any ? std::max(last, time) : time;
      any = true;
    });
  }
  if (!any) return;
  const double span = std::max(1.0, static_cast<double>(last - first));
  for (const StreamActivities& stream : streams) {
    StreamQueueLength queue{std::string(trace.string(trace.track(stream.track).info().name)), {}};
    queue.samples.assign(kQueueBuckets, {});
    for (std::size_t bucket = 0; bucket < kQueueBuckets; ++bucket)
      queue.samples[bucket].time_ns = span * static_cast<double>(bucket) / kQueueBuckets;
    std::vector<bool> touched(kQueueBuckets, false);
    std::vector<double> ending(kQueueBuckets, 0);  // the length a touched bucket ends at
    double length = 0;
    for_each_queue_change(stream, [&](trace::TimeNs time, int delta, const StreamActivity&) {
      const double before = length;
      length += delta;
      const auto bucket = std::min(
          kQueueBuckets - 1,
          static_cast<std::size_t>(static_cast<double>(time - first) / span * kQueueBuckets));
      QueueSample& sample = queue.samples[bucket];
      sample.length = std::max({sample.length, length, touched[bucket] ? 0.0 : before});
      touched[bucket] = true;
      ending[bucket] = length;
    });
    // A bucket with no change holds what the last change left.
    double held = 0;
    for (std::size_t bucket = 0; bucket < kQueueBuckets; ++bucket) {
      if (touched[bucket]) {
        held = ending[bucket];
      } else {
        queue.samples[bucket].length = held;
      }
    }
    charts.queues.push_back(std::move(queue));
  }
}

}  // namespace

ReportCharts compute_report_charts(const trace::Trace& trace, const ReportOptions& options) {
  ReportCharts charts;
  const AnalysisContext context(trace, options.analysis);
  charts.steps = step_breakdowns(context, charts.step_count);
  memory_samples(context, charts);
  queue_samples(context, charts);
  return charts;
}

}  // namespace tscope::analyzer
