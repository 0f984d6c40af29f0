#pragma once
// What the HTML report draws beyond the report itself: the time breakdown of individual steps,
// memory in use over the run with its peak and any out-of-memory events, and the launch-queue
// length of each GPU stream over the run.

#include <cstddef>
#include <string>
#include <vector>

#include "tscope/analyzer/report.h"

namespace tscope::analyzer {

struct StepBreakdown {
  std::string name;
  TimeBreakdown time;
};

struct MemorySample {
  double time_ns = 0;  // since the first memory event
  double live_bytes = 0;
};

struct QueueSample {
  double time_ns = 0;  // since the first queue change of any stream
  double length = 0;   // launched kernels not yet started
};

struct StreamQueueLength {
  std::string stream;
  std::vector<QueueSample> samples;
};

struct ReportCharts {
  // Steps spread evenly over the run when there are more than the chart shows.
  std::vector<StepBreakdown> steps;
  std::size_t step_count = 0;
  // The most bytes in use within each of a few hundred equal time buckets.
  std::vector<MemorySample> memory;
  MemorySample memory_peak;
  std::vector<double> oom_times_ns;  // same clock as `memory`
  // Per stream with launched work in the steps, the longest queue within each of a few hundred
  // equal time buckets (one clock for all streams).
  std::vector<StreamQueueLength> queues;
};

ReportCharts compute_report_charts(const trace::Trace& trace, const ReportOptions& options);

}  // namespace tscope::analyzer
