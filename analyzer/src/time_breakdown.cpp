#include "tscope/analyzer/time_breakdown.h"

#include <algorithm>
#include <iterator>

#include "event_classes.h"
#include "interval_sweep.h"
#include "span_window.h"

namespace tscope::analyzer {
namespace {

using trace::TimeNs;

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
      } else if (block->start - went_idle <= context.options().kernel_wait_ns) {
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

}  // namespace

TimeBreakdown compute_time_breakdown(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  TimeBreakdown sum;
  sum.has_gpu = context.has_gpu();
  const std::vector<TrackWindow> gpu = gpu_work_tracks(trace);
  TrackWindow host{context.main_thread(), 0};
  if (host.track != trace::kNoIndex) {
    const trace::SpanColumns& spans = trace.track(host.track).spans();
    host.longest = longest_span(trace.track(host.track), [&](std::uint32_t i) {
      return host_activity(spans.category[i], trace.string(spans.name[i])) != HostActivity::kNone;
    });
  }

  std::vector<ClassInterval> intervals;
  for (const Step& step : context.steps().steps) {
    const auto length = static_cast<double>(step.end - step.start);
    sum.step_ns += length;
    if (sum.has_gpu) {
      intervals.clear();
      for (const TrackWindow& window : gpu) {
        const trace::SpanColumns& spans = trace.track(window.track).spans();
        for_spans_in_window(
            trace.track(window.track), step.start, step.end, window.longest, [&](std::uint32_t i) {
              const GpuWork work = gpu_work(spans.category[i], trace.string(spans.name[i]));
              if (work == GpuWork::kNone) return;
              intervals.push_back({spans.start[i], spans.end[i], static_cast<std::uint8_t>(work)});
            });
      }
      const auto busy = exclusive_time(intervals, kGpuWorkCount, step.start, step.end);
      sum.gpu_compute_ns += static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kCompute)]);
      sum.gpu_communication_ns +=
          static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kCommunication)]);
      sum.gpu_copy_ns += static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kCopy)]);
      sum.gpu_memset_ns += static_cast<double>(busy[static_cast<std::size_t>(GpuWork::kMemset)]);
      split_gpu_idle(context, step.start, step.end, sum);
    }
    if (host.track != trace::kNoIndex) {
      intervals.clear();
      const trace::SpanColumns& spans = trace.track(host.track).spans();
      for_spans_in_window(
          trace.track(host.track), step.start, step.end, host.longest, [&](std::uint32_t i) {
            const HostActivity activity =
                host_activity(spans.category[i], trace.string(spans.name[i]));
            if (activity == HostActivity::kNone) return;
            intervals.push_back(
                {spans.start[i], spans.end[i], static_cast<std::uint8_t>(activity)});
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
       {&sum.step_ns, &sum.gpu_compute_ns, &sum.gpu_communication_ns, &sum.gpu_copy_ns,
        &sum.gpu_memset_ns, &sum.gpu_idle_host_wait_ns, &sum.gpu_idle_kernel_wait_ns,
        &sum.gpu_idle_other_ns, &sum.host_data_wait_ns, &sum.host_sync_ns, &sum.host_optimizer_ns,
        &sum.host_ops_ns, &sum.host_other_ns}) {
    *field /= steps;
  }
  return sum;
}

}  // namespace tscope::analyzer
