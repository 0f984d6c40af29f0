#include "tscope/analyzer/copies.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "event_classes.h"
#include "gpu_spans.h"
#include "trace_names.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kPageableCopy = "pageable_copy";
constexpr std::string_view kSynchronousCopy = "synchronous_copy";
constexpr std::string_view kSyncStall = "sync_stall";
constexpr std::string_view kGpuGap = "gpu_gap";
constexpr std::array kFindingKinds{kPageableCopy, kSynchronousCopy, kSyncStall, kGpuGap};

constexpr std::size_t kMaxEvidence = 40;
// How far past a copy's launch to look for the call that waits for it.
constexpr std::size_t kFollowingCallWindow = 64;

TimeNs duration(const trace::Trace& trace, EventRef ref) {
  const trace::SpanColumns& spans = trace.track(ref.track).spans();
  return spans.end(ref.index) - spans.start[ref.index];
}

// The first runtime call on the launching thread after the launch, when it waits for the GPU.
std::optional<EventRef> sync_after(const trace::Trace& trace, EventRef launch) {
  const trace::SpanColumns& spans = trace.track(launch.track).spans();
  const TimeNs launch_end = spans.end(launch.index);
  const std::size_t last = std::min<std::size_t>(spans.size(), launch.index + kFollowingCallWindow);
  for (std::uint32_t i = launch.index + 1; i < last; ++i) {
    if (spans.start[i] < launch_end || !is_runtime_call(spans.category[i])) continue;
    if (is_sync_call(spans.category[i], trace.string(spans.name[i]))) {
      return EventRef{EventKind::kSpan, launch.track, i};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

struct CopyFacts {
  EventRef copy;
  trace::CopyInfo info;
  TimeNs copy_ns = 0;
  std::optional<EventRef> waiting_sync;
  bool blocking_call = false;
  // The host's wait for the copy: the blocking copy call, and the synchronization that follows.
  TimeNs host_wait_ns = 0;
};

// The names of `events`, each once, in the order first met.
std::vector<std::string> names_of(const trace::Trace& trace, const std::vector<EventRef>& events) {
  std::vector<std::string> names;
  for (const EventRef& event : events) {
    std::string name(trace.string(trace.track(event.track).spans().name[event.index]));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// A cost summed over every step, as time per mean step and share of the step time.
FindingCost per_step(const AnalysisContext& context, double total_ns) {
  return {total_ns / context.step_count(), total_ns / context.steps().total_ns(), 0};
}

// Time summed per GPU or per process, of which a finding costs the largest: several GPUs or
// processes run side by side, and their times summed against one step could pass the step.
class LargestOwner {
 public:
  // The owner of GPU work: its process and device.
  void add_gpu(const trace::Trace& trace, EventRef event, double ns) {
    const trace::TrackInfo& info = trace.track(event.track).info();
    totals_[{info.process, info.device}] += ns;
  }
  // The owner of host work: its process.
  void add_host(const trace::Trace& trace, EventRef event, double ns) {
    totals_[{trace.track(event.track).info().process, -1}] += ns;
  }
  double largest() const {
    double most = 0;
    for (const auto& [owner, ns] : totals_)
      most = std::max(most, ns);
    return most;
  }

 private:
  std::map<std::pair<std::uint32_t, std::int32_t>, double> totals_;
};

std::vector<CopyFacts> copies_in_steps(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  std::vector<CopyFacts> copies;
  for_each_gpu_span(trace, [&](const trace::SpanColumns& spans, std::uint32_t i, EventRef span) {
    if (spans.category[i] != trace::Category::kMemcpy || spans.detail[i] == trace::kNoIndex) return;
    if (context.step_of_gpu_activity(span) == context.steps().steps.size()) return;
    const trace::SpanDetail& detail = trace.span_details()[spans.detail[i]];
    if (detail.copy == trace::kNoIndex) return;
    CopyFacts facts;
    facts.copy = span;
    facts.info = trace.copies()[detail.copy];
    facts.copy_ns = duration(trace, span);
    if (const std::optional<EventRef> launch = context.launch_of(span)) {
      const trace::SpanColumns& host = trace.track(launch->track).spans();
      facts.blocking_call = is_blocking_copy_call(trace.string(host.name[launch->index]));
      if (facts.blocking_call) facts.host_wait_ns += duration(trace, *launch);
      facts.waiting_sync = sync_after(trace, *launch);
      if (facts.waiting_sync) facts.host_wait_ns += duration(trace, *facts.waiting_sync);
    }
    copies.push_back(facts);
  });
  return copies;
}

bool is_pageable(const trace::CopyInfo& copy) {
  return copy.source == trace::MemoryKind::kPageable ||
         copy.destination == trace::MemoryKind::kPageable;
}

Finding pageable_copies(const AnalysisContext& context, const std::vector<CopyFacts>& copies) {
  Finding finding;
  finding.kind = kPageableCopy;
  double copy_ns = 0;
  LargestOwner device_copy_ns;
  double bytes = 0;
  double count = 0;
  double followed_by_sync = 0;
  for (const CopyFacts& copy : copies) {
    if (!is_pageable(copy.info)) continue;
    ++count;
    bytes += static_cast<double>(copy.info.bytes);
    copy_ns += static_cast<double>(copy.copy_ns);
    device_copy_ns.add_gpu(context.trace(), copy.copy, static_cast<double>(copy.copy_ns));
    if (copy.waiting_sync) ++followed_by_sync;
    if (finding.evidence.size() < kMaxEvidence) finding.evidence.push_back(copy.copy);
  }
  if (count == 0) return finding;
  finding.cost = per_step(context, device_copy_ns.largest());
  finding.severity = std::max(Severity::kLow, severity_for_share(finding.cost.share_of_step));
  finding.title =
      std::to_string(static_cast<long>(count)) + " copies from or to pageable host memory";
  finding.metrics = {{"copies", count, "count"},
                     {"bytes", bytes, "bytes"},
                     {"copy_ns_per_step", finding.cost.time_per_step_ns, "ns"},
                     {"followed_by_sync", followed_by_sync, "count"}};
  finding.explanation = std::to_string(static_cast<long>(count)) + " copies (" +
                        format_bytes(bytes) + ", " + format_duration(copy_ns) +
                        " on the GPU) use pageable host memory: the driver stages them through a "
                        "pinned bounce buffer and they cannot overlap with host work.";
  finding.recommendation =
      "Allocate the host side of these copies in pinned memory (cudaHostAlloc, "
      "tensor.pin_memory(), DataLoader(pin_memory=True)) and copy with non_blocking=True.";
  // Pinned memory about doubles a copy's bandwidth (the staging copy through the bounce buffer
  // is gone): the copies take half their time.
  finding.estimated_gain_ns_per_step = finding.cost.time_per_step_ns / 2;
  std::vector<EventRef> pageable;
  for (const CopyFacts& copy : copies) {
    if (is_pageable(copy.info)) pageable.push_back(copy.copy);
  }
  finding.fix = {"kernel:" + exact_names_pattern(names_of(context.trace(), pageable)) + "*0.5"};
  return finding;
}

Finding synchronous_copies(const AnalysisContext& context, const std::vector<CopyFacts>& copies) {
  Finding finding;
  finding.kind = kSynchronousCopy;
  double count = 0;
  LargestOwner blocked_ns;
  double followed_by_sync = 0;
  std::vector<EventRef> waiting_calls;
  for (const CopyFacts& copy : copies) {
    if (!copy.blocking_call && !copy.waiting_sync) continue;
    if (copy.blocking_call) waiting_calls.push_back(*context.launch_of(copy.copy));
    if (copy.waiting_sync) waiting_calls.push_back(*copy.waiting_sync);
    ++count;
    blocked_ns.add_host(context.trace(), waiting_calls.back(),
                        static_cast<double>(copy.host_wait_ns));
    if (copy.waiting_sync) ++followed_by_sync;
    if (finding.evidence.size() + 2 <= kMaxEvidence) {
      finding.evidence.push_back(copy.copy);
      if (copy.waiting_sync) finding.evidence.push_back(*copy.waiting_sync);
    }
  }
  if (count == 0) return finding;
  finding.cost = per_step(context, blocked_ns.largest());
  finding.severity = std::max(Severity::kLow, severity_for_share(finding.cost.share_of_step));
  finding.title = std::to_string(static_cast<long>(count)) + " copies the host waits for";
  finding.estimated_gain_ns_per_step = finding.cost.time_per_step_ns;
  finding.metrics = {{"copies", count, "count"},
                     {"followed_by_sync", followed_by_sync, "count"},
                     {"blocked_ns_per_step", finding.cost.time_per_step_ns, "ns"}};
  finding.explanation = std::to_string(static_cast<long>(count)) +
                        " copies are synchronous: issued by a blocking copy call or followed "
                        "directly by a stream or device synchronization (" +
                        std::to_string(static_cast<long>(followed_by_sync)) +
                        "), so the host idles " + format_duration(finding.cost.time_per_step_ns) +
                        " per step until each one is done.";
  finding.recommendation =
      "Use cudaMemcpyAsync (non_blocking=True) from pinned memory and synchronize once, with an "
      "event, where the result is first needed; avoid .item() or .cpu() in the step.";
  finding.fix = {"remove-sync:" + exact_names_pattern(names_of(context.trace(), waiting_calls))};
  return finding;
}

Finding synchronization_stalls(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const std::vector<BusyInterval>& busy = context.gpu_busy();
  Finding finding;
  finding.kind = kSyncStall;
  double count = 0;
  LargestOwner stall_ns;
  std::vector<EventRef> stalling_calls;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (!is_sync_call(spans.category[i], trace.string(spans.name[i]))) continue;
      if (context.steps().step_at(spans.start[i]) == context.steps().steps.size()) continue;
      // The GPU stalls when it ran dry during the wait and only gets work once the host resumes.
      auto next = std::upper_bound(busy.begin(), busy.end(), spans.end(i),
                                   [](TimeNs t, const BusyInterval& b) { return t < b.start; });
      if (next == busy.begin()) continue;
      const BusyInterval& last = *std::prev(next);
      if (last.end >= spans.end(i) || next == busy.end()) continue;
      const TimeNs stall = next->start - std::max(last.end, spans.start[i]);
      if (stall <= 0) continue;
      ++count;
      stalling_calls.push_back({EventKind::kSpan, track_index, i});
      stall_ns.add_host(trace, stalling_calls.back(), static_cast<double>(stall));
      if (finding.evidence.size() < kMaxEvidence) finding.evidence.push_back(stalling_calls.back());
    }
  }
  if (count == 0) return finding;
  finding.cost = per_step(context, stall_ns.largest());
  finding.severity = severity_for_share(finding.cost.share_of_step);
  finding.title = std::to_string(static_cast<long>(count)) + " synchronizations leave the GPU idle";
  finding.estimated_gain_ns_per_step = finding.cost.time_per_step_ns;
  finding.metrics = {{"synchronizations", count, "count"},
                     {"gpu_stall_ns_per_step", finding.cost.time_per_step_ns, "ns"}};
  finding.explanation = "After " + std::to_string(static_cast<long>(count)) +
                        " stream or device synchronizations the GPU had drained its queue and "
                        "waited for the host to launch more work: " +
                        format_duration(finding.cost.time_per_step_ns) + " of GPU idle per step.";
  finding.recommendation =
      "Remove synchronizations from the step (host reads of GPU values, blocking copies) or "
      "move them after the next step's work is queued.";
  finding.fix = {"remove-sync:" + exact_names_pattern(names_of(trace, stalling_calls))};
  return finding;
}

Finding gpu_gaps(const AnalysisContext& context) {
  const std::vector<BusyInterval>& busy = context.gpu_busy();
  const StepSet& steps = context.steps();
  Finding finding;
  finding.kind = kGpuGap;
  double count = 0;
  double gap_ns = 0;
  for (std::size_t i = 1; i < busy.size(); ++i) {
    const TimeNs gap = busy[i].start - busy[i - 1].end;
    if (gap < context.options().gpu_gap_ns) continue;
    if (steps.step_at(busy[i - 1].end) == steps.steps.size() &&
        steps.step_at(busy[i].start - 1) == steps.steps.size()) {
      continue;
    }
    ++count;
    gap_ns += static_cast<double>(gap);
    if (finding.evidence.size() < kMaxEvidence) finding.evidence.push_back(busy[i].first);
  }
  if (count == 0) return finding;
  finding.cost = per_step(context, gap_ns);
  finding.severity = severity_for_share(finding.cost.share_of_step);
  finding.title = std::to_string(static_cast<long>(count)) + " GPU gaps of at least " +
                  format_duration(static_cast<double>(context.options().gpu_gap_ns));
  finding.estimated_gain_ns_per_step = finding.cost.time_per_step_ns;
  finding.metrics = {{"gaps", count, "count"}, {"gap_ns", gap_ns, "ns"}};
  finding.explanation = "The GPU ran nothing for " + format_duration(gap_ns) + " in " +
                        std::to_string(static_cast<long>(count)) +
                        " stretches; the evidence points "
                        "at the work that ended each gap.";
  finding.recommendation =
      "Look at what the host does before each gap (data loading, checkpointing, logging) and "
      "move it off the critical path or overlap it with GPU work.";
  return finding;
}

}  // namespace

std::vector<Finding> find_copy_and_sync_problems(const AnalysisContext& context) {
  const std::vector<CopyFacts> copies = copies_in_steps(context);
  std::vector<Finding> findings;
  for (Finding finding : {pageable_copies(context, copies), synchronous_copies(context, copies),
                          synchronization_stalls(context), gpu_gaps(context)}) {
    if (!finding.title.empty()) findings.push_back(std::move(finding));
  }
  return findings;
}

extern constinit const Analysis kCopiesAnalysis{
    "copies", kFindingKinds, {}, &findings_of<&find_copy_and_sync_problems>};

}  // namespace tscope::analyzer
