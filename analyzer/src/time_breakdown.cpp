#include "tscope/analyzer/time_breakdown.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <span>

#include "event_classes.h"
#include "interval_sweep.h"
#include "span_window.h"
#include "trace_names.h"

namespace tscope::analyzer {
namespace {

// GPU idle time in [start, end) by cause, from the merged busy stretches. A gap is host wait when
// the launch of the work that ends it began after the GPU ran dry (HTA's definition).
void split_gpu_idle(const AnalysisContext& context, TimeNs start, TimeNs end, TimeBreakdown& sum) {
  const std::vector<BusyInterval>& busy = context.gpu_busy();
  const trace::Trace& trace = context.trace();
  auto block = std::upper_bound(busy.begin(), busy.end(), start,
                                [](TimeNs t, const BusyInterval& b) { return t < b.end; });
  TimeNs went_idle = block == busy.begin() ? start : std::prev(block)->end;
  TimeNs idle_from = start;
  while (idle_from < end) {
    if (block == busy.end()) {
      sum.gpu_idle_other_ns += static_cast<double>(end - idle_from);
      break;
    }
    if (block->start > idle_from) {
      const auto gap = static_cast<double>(std::min(block->start, end) - idle_from);
      const auto launch = context.launch_of(block->first);
      if (launch && trace.track(launch->track).spans().start[launch->index] > went_idle) {
        sum.gpu_idle_host_wait_ns += gap;
      } else if (block->start - went_idle < context.options().kernel_wait_ns) {
        sum.gpu_idle_kernel_wait_ns += gap;
      } else {
        sum.gpu_idle_other_ns += gap;
      }
    }
    idle_from = std::max(idle_from, std::min(block->end, end));
    went_idle = block->end;
    ++block;
  }
}

// GPU work sorted into steps: by the step of its launch call, or, without a launch record, by
// overlap (clipped to each step it overlaps).
struct StepGpuWork {
  // Grouped by step in one array: step s's are [launched_first[s], launched_first[s + 1]).
  std::vector<ClassInterval> launched;
  std::vector<std::size_t> launched_first;
  std::vector<TimeNs> launched_end;       // per step, the last end of its launched work
  std::vector<ClassInterval> unlaunched;  // sorted by start
  TimeNs longest_unlaunched = 0;

  std::span<const ClassInterval> launched_in(std::size_t step) const {
    return {launched.data() + launched_first[step], launched.data() + launched_first[step + 1]};
  }
};

StepGpuWork sort_gpu_work_into_steps(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const StepSet& steps = context.steps();
  StepGpuWork work;
  work.launched_first.assign(steps.steps.size() + 1, 0);
  work.launched_end.assign(steps.steps.size(), std::numeric_limits<TimeNs>::min());
  // A launched activity's step is its launch call's: counted per step, then placed.
  const auto for_each_launched = [&](auto&& visit) {
    for (const GpuStream& stream : context.gpu_streams()) {
      for (const GpuActivity& activity : stream.activities) {
        if (activity.step == steps.steps.size() ||
            !context.launch_of({trace::EventKind::kSpan, stream.track, activity.index})) {
          continue;
        }
        visit(stream, activity);
      }
    }
  };
  for_each_launched([&](const GpuStream&, const GpuActivity& activity) {
    ++work.launched_first[activity.step + 1];
  });
  for (std::size_t step = 0; step < steps.steps.size(); ++step)
    work.launched_first[step + 1] += work.launched_first[step];
  work.launched.resize(work.launched_first.back());
  std::vector<std::size_t> next(work.launched_first.begin(), work.launched_first.end() - 1);
  for_each_launched([&](const GpuStream& stream, const GpuActivity& activity) {
    const trace::SpanColumns& spans = trace.track(stream.track).spans();
    const std::uint32_t i = activity.index;
    work.launched[next[activity.step]++] = {spans.start[i], spans.end(i), activity.kind};
    work.launched_end[activity.step] = std::max(work.launched_end[activity.step], spans.end(i));
  });
  for (const GpuStream& stream : context.gpu_streams()) {
    const trace::SpanColumns& spans = trace.track(stream.track).spans();
    for (const GpuActivity& activity : stream.activities) {
      const std::uint32_t i = activity.index;
      if (context.launch_of({trace::EventKind::kSpan, stream.track, i})) continue;
      const ClassInterval interval{spans.start[i], spans.end(i), activity.kind};
      work.unlaunched.push_back(interval);
      work.longest_unlaunched = std::max(work.longest_unlaunched, interval.end - interval.start);
    }
  }
  std::sort(work.unlaunched.begin(), work.unlaunched.end(),
            [](const ClassInterval& a, const ClassInterval& b) { return a.start < b.start; });
  return work;
}

// The GPU side of one step: its busy time by kind and its idle time by cause. `intervals` is
// scratch memory shared by the steps.
void split_step_gpu_time(const AnalysisContext& context, const StepGpuWork& work,
                         std::size_t step_index, std::vector<ClassInterval>& intervals,
                         TimeBreakdown& sum) {
  const std::vector<Step>& steps = context.steps().steps;
  const Step& step = steps[step_index];
  const std::span<const ClassInterval> launched = work.launched_in(step_index);
  intervals.assign(launched.begin(), launched.end());
  TimeNs first = step.start;
  TimeNs last = step.end;
  for (const ClassInterval& interval : intervals) {
    first = std::min(first, interval.start);
    last = std::max(last, interval.end);
  }
  const auto from = std::lower_bound(
      work.unlaunched.begin(), work.unlaunched.end(), step.start - work.longest_unlaunched,
      [](const ClassInterval& interval, TimeNs t) { return interval.start < t; });
  for (auto at = from; at != work.unlaunched.end() && at->start < step.end; ++at) {
    const ClassInterval clipped{std::max(at->start, step.start), std::min(at->end, step.end),
                                at->priority};
    if (clipped.end <= clipped.start) continue;
    intervals.push_back(clipped);
    sum.gpu_by_overlap_ns += static_cast<double>(clipped.end - clipped.start);
    // An activity across a step boundary is counted once, in the first step it overlaps.
    const bool counted = step_index > 0 && at->start < steps[step_index - 1].end &&
                         at->end > steps[step_index - 1].start;
    if (!counted) ++sum.gpu_by_overlap_events;
  }
  const auto busy = exclusive_time(intervals, kGpuWorkCount, first, last);
  sum.gpu_compute_ns += static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kCompute)]);
  sum.gpu_communication_ns +=
      static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kCommunication)]);
  sum.gpu_copy_ns += static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kCopy)]);
  sum.gpu_memset_ns += static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kMemset)]);

  // The step's work may run past its host range, up to where the next selected step begins.
  const TimeNs next_start = step_index + 1 < steps.size() ? steps[step_index + 1].start
                                                          : std::numeric_limits<TimeNs>::max();
  const TimeNs window_end = std::max(step.end, std::min(work.launched_end[step_index], next_start));
  sum.gpu_window_ns += static_cast<double>(window_end - step.start);
  split_gpu_idle(context, step.start, window_end, sum);
}

// The host activity of each span of the main thread. Names repeat: each (name, category) pair is
// matched once.
std::vector<HostActivity> host_activities(const AnalysisContext& context) {
  std::vector<HostActivity> classes;
  if (context.main_thread() == trace::kNoIndex) return classes;
  const trace::Trace& trace = context.trace();
  const trace::SpanColumns& spans = trace.track(context.main_thread()).spans();
  struct Known {
    trace::Category category = trace::Category::kOther;
    HostActivity activity = HostActivity::kNone;
    bool set = false;
  };
  std::vector<Known> by_name;
  classes.reserve(spans.size());
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    const trace::StringId name = spans.name[i];
    if (by_name.size() <= name) by_name.resize(name + 1);
    Known& known = by_name[name];
    if (!known.set || known.category != spans.category[i])
      known = {spans.category[i], host_activity(spans.category[i], trace.string(name)), true};
    classes.push_back(known.activity);
  }
  return classes;
}

}  // namespace

TimeBreakdown compute_time_breakdown(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  TimeBreakdown sum;
  sum.has_gpu = context.has_gpu();
  StepGpuWork gpu_work_by_step = sum.has_gpu ? sort_gpu_work_into_steps(context) : StepGpuWork{};
  TrackWindow host{context.main_thread(), 0};
  const std::vector<HostActivity> host_classes = host_activities(context);
  if (host.track != trace::kNoIndex) {
    host.longest = longest_span(trace.track(host.track), [&](std::uint32_t i) {
      return host_classes[i] != HostActivity::kNone;
    });
  }

  std::vector<ClassInterval> intervals;
  for (std::size_t step_index = 0; step_index < context.steps().steps.size(); ++step_index) {
    const Step& step = context.steps().steps[step_index];
    const auto length = static_cast<double>(step.end - step.start);
    sum.step_ns += length;
    if (sum.has_gpu) split_step_gpu_time(context, gpu_work_by_step, step_index, intervals, sum);
    if (host.track != trace::kNoIndex) {
      intervals.clear();
      const trace::SpanColumns& spans = trace.track(host.track).spans();
      for_spans_in_window(
          trace.track(host.track), step.start, step.end, host.longest, [&](std::uint32_t i) {
            const HostActivity activity = host_classes[i];
            if (activity == HostActivity::kNone) return;
            intervals.push_back(
                {spans.start[i], spans.end(i), static_cast<std::uint8_t>(activity)});
          });
      const auto split = exclusive_time(intervals, kHostActivityCount, step.start, step.end);
      const auto part = [&](HostActivity activity) {
        return static_cast<double>(split[static_cast<std::size_t>(activity)]);
      };
      sum.host_data_wait_ns += part(HostActivity::kDataWait);
      sum.host_sync_ns += part(HostActivity::kSync);
      sum.host_optimizer_ns += part(HostActivity::kOptimizer);
      sum.host_ops_ns += part(HostActivity::kOp);
      sum.host_other_ns += length - part(HostActivity::kDataWait) - part(HostActivity::kSync) -
                           part(HostActivity::kOptimizer) - part(HostActivity::kOp);
    } else {
      sum.host_other_ns += length;
    }
  }

  const double steps = context.step_count();
  for (double* field :
       {&sum.step_ns, &sum.gpu_window_ns, &sum.gpu_by_overlap_ns, &sum.gpu_compute_ns,
        &sum.gpu_communication_ns, &sum.gpu_copy_ns, &sum.gpu_memset_ns, &sum.gpu_idle_host_wait_ns,
        &sum.gpu_idle_kernel_wait_ns, &sum.gpu_idle_other_ns, &sum.host_data_wait_ns,
        &sum.host_sync_ns, &sum.host_optimizer_ns, &sum.host_ops_ns, &sum.host_other_ns}) {
    *field /= steps;
  }
  return sum;
}

}  // namespace tscope::analyzer
