#include "tscope/analyzer/input_stalls.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include "cpu_contention.h"
#include "event_classes.h"
#include "interval_sweep.h"
#include "span_window.h"
#include "trace_names.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kInputBound = "input_bound";
constexpr std::array kFindingKinds{kInputBound};

constexpr std::size_t kMaxEvidence = 20;

bool is_host_to_device_copy(const trace::Trace& trace, const trace::SpanColumns& spans,
                            std::uint32_t i) {
  if (spans.category[i] != trace::Category::kMemcpy) return false;
  const trace::SpanDetail* detail = nullptr;
  if (spans.detail[i] != trace::kNoIndex) detail = &trace.span_details()[spans.detail[i]];
  return detail != nullptr && detail->copy != trace::kNoIndex &&
         trace.copies()[detail->copy].direction == trace::CopyDirection::kHostToDevice;
}

struct CopyExposure {
  double exposed_ns = 0;  // host-to-device copy time no compute kernel overlaps, all steps
  bool pageable = false;
  std::vector<EventRef> copies;
};

CopyExposure exposed_host_to_device_copies(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  CopyExposure exposure;
  constexpr std::uint8_t kCompute = 0;
  constexpr std::uint8_t kCopy = 1;
  std::vector<ClassInterval> intervals;
  for (const Step& step : context.steps().steps) {
    intervals.clear();
    for (const GpuStream& stream : context.gpu_streams()) {
      const trace::SpanColumns& spans = trace.track(stream.track).spans();
      // The activities that may overlap the step: from those starting `longest` before it.
      const auto first = std::lower_bound(
          stream.activities.begin(), stream.activities.end(), step.start - stream.longest,
          [&](const GpuActivity& a, TimeNs t) { return spans.start[a.index] < t; });
      for (auto at = first; at != stream.activities.end() && spans.start[at->index] < step.end;
           ++at) {
        const std::uint32_t i = at->index;
        if (spans.end(i) <= step.start) continue;
        if (at->kind == static_cast<std::uint8_t>(GpuWork::kCompute)) {
          intervals.push_back({spans.start[i], spans.end(i), kCompute});
        } else if (is_host_to_device_copy(trace, spans, i)) {
          intervals.push_back({spans.start[i], spans.end(i), kCopy});
          const auto& copy = trace.copies()[trace.span_details()[spans.detail[i]].copy];
          exposure.pageable |= copy.source == trace::MemoryKind::kPageable;
          if (exposure.copies.size() < kMaxEvidence) {
            exposure.copies.push_back({EventKind::kSpan, stream.track, i});
          }
        }
      }
    }
    exposure.exposed_ns +=
        static_cast<double>(exclusive_time(intervals, 2, step.start, step.end)[kCopy]);
  }
  return exposure;
}

// Loader worker ranges during the steps (an evaluation loader running afterwards is not what the
// steps waited for): how long a worker takes per batch and how many workers there are.
struct LoaderWork {
  std::size_t batches = 0;
  double load_ns = 0;
  std::set<std::uint32_t> worker_tracks;
  std::vector<EventRef> evidence;
};

LoaderWork loader_work(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const std::vector<Step>& steps = context.steps().steps;
  LoaderWork work;
  if (steps.empty()) return work;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::SpanColumns& spans = trace.track(track_index).spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (!is_loader_work(spans.category[i])) continue;
      if (spans.end(i) < steps.front().start || spans.start[i] > steps.back().end) continue;
      ++work.batches;
      work.load_ns += static_cast<double>(spans.end(i) - spans.start[i]);
      work.worker_tracks.insert(track_index);
      if (work.evidence.size() < kMaxEvidence)
        work.evidence.push_back({EventKind::kSpan, track_index, i});
    }
  }
  return work;
}

std::vector<EventRef> longest_data_waits(const AnalysisContext& context) {
  std::vector<EventRef> waits;
  if (context.main_thread() == trace::kNoIndex) return waits;
  const trace::Trace& trace = context.trace();
  const trace::SpanColumns& spans = trace.track(context.main_thread()).spans();
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (host_activity(spans.category[i], trace.string(spans.name[i])) == HostActivity::kDataWait &&
        context.steps().step_at(spans.start[i]) < context.steps().steps.size()) {
      waits.push_back({EventKind::kSpan, context.main_thread(), i});
    }
  }
  const auto length = [&](const EventRef& ref) {
    return spans.end(ref.index) - spans.start[ref.index];
  };
  std::sort(waits.begin(), waits.end(),
            [&](const EventRef& a, const EventRef& b) { return length(a) > length(b); });
  if (waits.size() > kMaxEvidence) waits.resize(kMaxEvidence);
  return waits;
}

// The mean step the replay predicts with one edit, or none where it replays no step.
std::optional<double> replayed_mean_step(const AnalysisContext& context, const std::string& edit) {
  try {
    const WhatIfEdit parsed = parse_edit(edit);
    const WhatIfResult result = predict_steps(context, std::span(&parsed, 1));
    if (result.replayed_steps == 0) return std::nullopt;
    return result.predicted_mean_ns;
  } catch (const AnalyzerError&) {
    return std::nullopt;  // a trace without step ranges
  }
}

// The advice when keeping up would take more workers than the host has CPUs: workers beyond
// them only share the CPUs, so decoding must get cheaper; the replay says what workers up to the
// CPU count would give.
std::string more_workers_than_cpus(const AnalysisContext& context, double needed, double workers,
                                   double cpus) {
  std::string advice = ": keeping up takes " + std::to_string(static_cast<long>(needed)) +
                       " workers, more than the host's " + std::to_string(static_cast<long>(cpus)) +
                       " CPUs, which more workers would only share";
  if (workers < cpus) {
    const std::string edit = "workers=" + std::to_string(static_cast<long>(cpus));
    if (const std::optional<double> step = replayed_mean_step(context, edit)) {
      advice += "; with " + std::to_string(static_cast<long>(cpus)) + " workers (" + edit +
                ") the replay predicts a " + format_duration(*step) + " step";
    }
  }
  return advice +
         ". Make per-sample decoding cheaper (input-wait*0 is the step of a loader "
         "that keeps up). ";
}

}  // namespace

std::vector<Finding> find_input_stalls(const AnalysisContext& context) {
  const TimeBreakdown& time = context.time_breakdown();
  const CopyExposure copies = exposed_host_to_device_copies(context);
  const double steps = context.step_count();
  const double wait_per_step = time.host_data_wait_ns;
  const double copy_per_step = copies.exposed_ns / steps;
  const double input_per_step = wait_per_step + copy_per_step;
  const double share = time.step_ns > 0 ? input_per_step / time.step_ns : 0;
  const Severity severity = severity_for_share(share);
  if (severity == Severity::kInfo) return {};

  Finding finding;
  finding.kind = kInputBound;
  finding.severity = severity;
  finding.title = "Steps wait for input " + format_percent(share) + " of the time";
  finding.cost = {input_per_step, share, 0};
  finding.estimated_gain_ns_per_step = input_per_step;
  if (wait_per_step > 0) finding.fix = {"input-wait*0"};
  finding.evidence = longest_data_waits(context);
  finding.evidence.insert(finding.evidence.end(), copies.copies.begin(), copies.copies.end());
  finding.metrics = {{"input_share", share, "ratio"},
                     {"data_wait_ns_per_step", wait_per_step, "ns"},
                     {"exposed_h2d_copy_ns_per_step", copy_per_step, "ns"},
                     {"step_ns", time.step_ns, "ns"}};
  finding.explanation = "Each step spends " + format_duration(wait_per_step) +
                        " with the main thread waiting for the next batch and " +
                        format_duration(copy_per_step) +
                        " in host-to-device copies that no compute overlaps, out of a " +
                        format_duration(time.step_ns) +
                        " step. The TensorFlow profiler rates an input share from 20% as highly "
                        "and from 5% as moderately input-bound.";

  std::string advice;
  const LoaderWork loader = loader_work(context);
  if (loader.batches != 0) {
    const double load_per_batch = loader.load_ns / static_cast<double>(loader.batches);
    const double compute_per_step = std::max(1.0, time.step_ns - input_per_step);
    const double needed = std::ceil(load_per_batch / compute_per_step);
    const auto workers = static_cast<double>(loader.worker_tracks.size());
    finding.metrics.push_back({"loader_workers", workers, "count"});
    finding.metrics.push_back({"load_ns_per_batch", load_per_batch, "ns"});
    finding.metrics.push_back({"workers_needed", needed, "count"});
    finding.evidence.insert(finding.evidence.end(), loader.evidence.begin(), loader.evidence.end());
    advice += "A worker takes " + format_duration(load_per_batch) +
              " per batch while a step computes for " + format_duration(compute_per_step);
    const CpuContention& contention = context.cpu_contention();
    if (needed > workers && contention.modelled() && needed > contention.cpus()) {
      advice += more_workers_than_cpus(context, needed, workers, contention.cpus());
    } else if (needed > workers) {
      advice += ": use at least " + std::to_string(static_cast<long>(needed)) +
                " loader workers (now " + std::to_string(loader.worker_tracks.size()) +
                ") and a prefetch depth of at least " +
                std::to_string(2 * static_cast<long>(needed)) +
                " batches, or make per-sample decoding cheaper. ";
    } else {
      // Enough workers on average: the waits come from bursts (startup, slow samples) or from
      // workers that do not get a core.
      advice += ", so " + std::to_string(loader.worker_tracks.size()) +
                " workers keep up on average: prefetch deeper (at least 2 batches per worker) and "
                "check that "
                "the workers are not starved of CPU cores. ";
    }
  } else if (wait_per_step > 0) {
    advice += "Load batches in background workers with a prefetch depth of at least 2 per worker. ";
  }
  if (copies.pageable) {
    advice += "Copy batches from pinned host memory (pin_memory) so copies run asynchronously. ";
  }
  if (copy_per_step > 0) {
    advice +=
        "Issue host-to-device copies on a side stream one batch ahead so compute hides them. ";
  }
  finding.recommendation = advice.empty() ? "Overlap input loading with compute." : advice;
  if (!finding.recommendation.empty() && finding.recommendation.back() == ' ') {
    finding.recommendation.pop_back();
  }
  return {finding};
}

extern constinit const Analysis kInputAnalysis{
    "input", kFindingKinds, {}, &findings_of<&find_input_stalls>};

}  // namespace tscope::analyzer
