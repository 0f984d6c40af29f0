#include "tscope/analyzer/memory.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>

#include "batch_fit.h"
#include "device_memory.h"
#include "memory_replay.h"
#include "oom_events.h"
#include "trace_names.h"
#include "tscope/analyzer/allocation_category.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kOom = "oom";
constexpr std::string_view kMemoryPeak = "memory_peak";
constexpr std::array kFindingKinds{kOom, kMemoryPeak};

constexpr std::size_t kTopSites = 5;

struct SiteBytes {
  AllocationSite site;
  AllocationCategory category = AllocationCategory::kUnattributed;
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  EventRef largest;
  std::uint64_t largest_bytes = 0;
};

struct MemoryState {
  std::vector<SiteBytes> sites;  // most bytes first
  std::array<std::uint64_t, kAllocationCategoryCount> by_category{};
  std::uint64_t live = 0;
  std::uint64_t allocated = 0;
  std::uint64_t reserved = 0;
};

// Blocks alive from before the first step that no name places elsewhere are the model's own
// (parameters made by factories outside any op or range).
AllocationCategory category_of(const trace::Trace& trace, const LiveAllocation& allocation,
                               const StepSet& steps) {
  const AllocationCategory category = allocation_category(trace.string(allocation.site.owner_op),
                                                          trace.string(allocation.site.scope));
  const bool before_steps =
      !steps.whole_trace && !steps.steps.empty() && allocation.time < steps.steps.front().start;
  if (before_steps && category == AllocationCategory::kTemporaries)
    return AllocationCategory::kParameters;
  return category;
}

MemoryState summarize(const trace::Trace& trace, const MemoryReplay& replay, const StepSet& steps) {
  MemoryState state;
  std::map<std::pair<trace::StringId, trace::StringId>, SiteBytes> sites;
  for (const auto& [track, pool] : replay.live()) {
    for (const auto& [address, allocation] : pool) {
      SiteBytes& site = sites[{allocation.site.owner_op, allocation.site.scope}];
      site.site = allocation.site;
      site.bytes += allocation.bytes;
      ++site.count;
      if (allocation.bytes >= site.largest_bytes) {
        site.largest_bytes = allocation.bytes;
        site.largest = allocation.event;
      }
      site.category = category_of(trace, allocation, steps);
      state.by_category[static_cast<std::size_t>(site.category)] += allocation.bytes;
    }
  }
  if (replay.anonymous_bytes() > 0) {
    // Address-less events carry no site: their net bytes are one unattributed block.
    SiteBytes& site = sites[{trace::kEmptyString, trace::kEmptyString}];
    site.bytes += replay.anonymous_bytes();
    state.by_category[static_cast<std::size_t>(AllocationCategory::kUnattributed)] +=
        replay.anonymous_bytes();
  }
  for (auto& [key, site] : sites)
    state.sites.push_back(site);
  std::sort(state.sites.begin(), state.sites.end(),
            [](const SiteBytes& a, const SiteBytes& b) { return a.bytes > b.bytes; });
  state.live = replay.live_bytes();
  state.allocated = replay.reported_allocated();
  state.reserved = replay.reported_reserved();
  return state;
}

// The innermost user range (not an op) around `time` on `track`: the scope the user's code was in.
std::string user_scope_at(const trace::Trace& trace, std::uint32_t track_index,
                          trace::TimeNs time) {
  const trace::Track& track = trace.track(track_index);
  const trace::SpanColumns& spans = track.spans();
  std::string scope;
  for (std::size_t depth = 0; depth < track.depth_count(); ++depth) {
    const auto at_depth = track.spans_at_depth(depth);
    const std::size_t first = track.first_span_ending_after(depth, time);
    if (first >= at_depth.size()) continue;
    const std::uint32_t span = at_depth[first];
    if (spans.start[span] > time || spans.category[span] == trace::Category::kCpuOp) continue;
    scope = trace.string(spans.name[span]);
  }
  return scope;
}

enum class OomCase { kRequestExceedsLimit, kFragmented, kNoRoom, kUnknown };

OomCase classify(const OomEvent& oom) {
  if (!oom.requested_bytes) return OomCase::kUnknown;
  const double request = *oom.requested_bytes;
  if (oom.limit_bytes && request > *oom.limit_bytes) return OomCase::kRequestExceedsLimit;
  if (oom.reserved_bytes && oom.allocated_bytes && oom.largest_free_block_bytes &&
      *oom.reserved_bytes - *oom.allocated_bytes >= request &&
      *oom.largest_free_block_bytes < request) {
    return OomCase::kFragmented;
  }
  return OomCase::kNoRoom;
}

std::string requesting_op(const OomEvent& oom) {
  if (oom.op.empty()) return oom.inner_op;
  if (oom.inner_op.empty() || oom.inner_op == oom.op) return oom.op;
  return oom.op + " (" + oom.inner_op + ")";
}

// "scope / op: 12 MiB in 3 blocks (category)" for the largest sites.
std::string list_sites(const trace::Trace& trace, const MemoryState& state) {
  std::string text;
  for (std::size_t i = 0; i < std::min(kTopSites, state.sites.size()); ++i) {
    const SiteBytes& site = state.sites[i];
    text += (i == 0 ? " " : "; ") + site_label(trace, site.site) + " " +
            format_bytes(static_cast<double>(site.bytes)) + " in " + std::to_string(site.count) +
            " blocks (" + std::string(to_string(site.category)) + ")";
  }
  text += ". By category:";
  for (std::size_t category = 0; category < kAllocationCategoryCount; ++category) {
    if (state.by_category[category] == 0) continue;
    text += " " + std::string(to_string(static_cast<AllocationCategory>(category))) + " " +
            format_bytes(static_cast<double>(state.by_category[category])) + ";";
  }
  text.back() = '.';
  return text;
}

void add_batch_fit(Finding& finding, const BatchFit& fit, std::optional<double> failing_batch) {
  finding.metrics.push_back({"fixed_bytes", fit.fixed_bytes, "bytes"});
  finding.metrics.push_back({"bytes_per_sample", fit.per_sample_bytes, "bytes"});
  finding.metrics.push_back(
      {"largest_batch_that_fits", static_cast<double>(fit.largest_batch), "count"});
  finding.metrics.push_back({"largest_batch_is_bound", fit.is_bound ? 1.0 : 0.0, "bool"});
  finding.metrics.push_back({"complete_steps", static_cast<double>(fit.complete_steps), "count"});
  finding.metrics.push_back({"failed_steps", static_cast<double>(fit.failed_steps), "count"});
  std::string text;
  if (fit.largest_batch == 0) {
    text = "No batch fits: the " + format_bytes(fit.fixed_bytes) +
           " that do not scale with the batch already reach the " + format_bytes(fit.limit_bytes) +
           " limit. ";
  } else {
    text = "The largest batch that fits under " + format_bytes(fit.limit_bytes) + " is " +
           (fit.is_bound ? "at most " : "") + std::to_string(fit.largest_batch);
    if (failing_batch)
      text += " (it failed at " + std::to_string(static_cast<std::int64_t>(*failing_batch)) + ")";
    text += ": " + format_bytes(fit.fixed_bytes) + " fixed + " +
            format_bytes(fit.per_sample_bytes) + " per sample, " +
            (fit.is_bound ? "an upper bound, since " : "a fit from ") + fit.derivation + ". ";
  }
  if (fit.is_bound) {
    text += "Run with --auto-batch (or several batch sizes) for complete steps and a fit. ";
  }
  finding.recommendation += text;
}

}  // namespace

std::vector<Finding> find_memory_pressure(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const StepSet& steps = context.steps();
  MemoryReplay replay(trace, context.memory_order());
  if (replay.empty()) return {};
  const std::vector<OomEvent> ooms = out_of_memory_events(trace);
  std::optional<OomEvent> oom;
  if (!ooms.empty()) oom = ooms.front();
  if (oom && !oom->batch_size) {
    // The allocator does not know the batch; the step it failed in may say.
    const std::size_t step = steps.step_at(oom->time);
    if (step < steps.steps.size() && steps.steps[step].span) {
      oom->batch_size = step_batch_size(trace, *steps.steps[step].span);
    }
  }

  // The peak of live bytes, and where in the event order it was reached.
  std::size_t peak_position = 0;
  std::uint64_t peak = 0;
  {
    MemoryReplay scan(trace, context.memory_order());
    for (std::size_t position = 1; position <= scan.event_count(); ++position) {
      scan.advance_to(position);
      if (scan.live_bytes() > peak) {
        peak = scan.live_bytes();
        peak_position = position;
      }
    }
  }
  if (oom) {
    replay.advance_until(oom->time, true);
  } else {
    replay.advance_to(peak_position);
  }
  const MemoryState state = summarize(trace, replay, steps);

  Finding finding;
  finding.kind = oom ? kOom : kMemoryPeak;
  finding.severity = oom ? Severity::kHigh : Severity::kInfo;
  finding.cost.bytes = state.live;
  if (oom) finding.evidence.push_back(oom->ref);
  for (std::size_t i = 0; i < std::min(kTopSites, state.sites.size()); ++i) {
    if (state.sites[i].count > 0) finding.evidence.push_back(state.sites[i].largest);
  }
  const std::string largest =
      state.sites.empty() ? "nothing" : site_label(trace, state.sites.front().site);
  finding.metrics = {{"live_bytes", static_cast<double>(state.live), "bytes"},
                     {"peak_live_bytes", static_cast<double>(peak), "bytes"},
                     {"allocated_bytes", static_cast<double>(state.allocated), "bytes"},
                     {"reserved_bytes", static_cast<double>(state.reserved), "bytes"}};
  const double fragmentation = state.reserved > 0 ? 1.0 - static_cast<double>(state.allocated) /
                                                              static_cast<double>(state.reserved)
                                                  : 0;
  finding.metrics.push_back({"fragmentation", fragmentation, "ratio"});
  if (!state.sites.empty()) {
    finding.metrics.push_back(
        {"largest_site_bytes", static_cast<double>(state.sites.front().bytes), "bytes"});
  }
  for (std::size_t category = 0; category < kAllocationCategoryCount; ++category) {
    if (state.by_category[category] == 0) continue;
    finding.metrics.push_back(
        {"bytes_" + std::string(to_string(static_cast<AllocationCategory>(category))),
         static_cast<double>(state.by_category[category]), "bytes"});
  }

  const std::string live_text = format_bytes(static_cast<double>(state.live));
  std::string explanation;
  const OomCase oom_case = oom ? classify(*oom) : OomCase::kUnknown;
  if (oom) {
    const std::string op = requesting_op(*oom);
    const std::string scope = user_scope_at(trace, oom->ref.track, oom->time);
    const std::string asker =
        (op.empty() ? std::string("an unknown op") : op) + (scope.empty() ? "" : " under " + scope);
    const std::string request =
        oom->requested_bytes ? format_bytes(*oom->requested_bytes) : "an unknown size";
    const std::string limit = oom->limit_bytes ? format_bytes(*oom->limit_bytes) : "the limit";
    switch (oom_case) {
      case OomCase::kRequestExceedsLimit:
        finding.title = "Out of memory: one request of " + request + " by " + asker +
                        " is larger than the whole " + limit + " limit";
        explanation =
            "The request alone exceeds the limit, so no freeing can make room: only a smaller "
            "batch can. ";
        break;
      case OomCase::kFragmented:
        finding.title = "Out of memory: a request of " + request + " by " + asker + " finds " +
                        format_bytes(*oom->reserved_bytes - *oom->allocated_bytes) +
                        " free in the allocator's cache but no block larger than " +
                        format_bytes(*oom->largest_free_block_bytes);
        explanation = "Free memory exists but is fragmented: the largest free block (" +
                      format_bytes(*oom->largest_free_block_bytes) +
                      ") is smaller than the request (" + request + "), with " +
                      format_bytes(*oom->allocated_bytes) + " allocated of " +
                      format_bytes(*oom->reserved_bytes) + " reserved. ";
        break;
      case OomCase::kNoRoom:
      case OomCase::kUnknown:
        finding.title = "Out of memory: a request of " + request + " by " + asker +
                        " finds no room: " + live_text + " of " + limit +
                        " held by live tensors; largest holder: " + largest;
        explanation = "Live tensors leave no room for the request. ";
        break;
    }
    if (oom->requested_bytes)
      finding.metrics.push_back({"requested_bytes", *oom->requested_bytes, "bytes"});
    if (oom->limit_bytes) finding.metrics.push_back({"limit_bytes", *oom->limit_bytes, "bytes"});
    if (oom->largest_free_block_bytes) {
      finding.metrics.push_back(
          {"largest_free_block_bytes", *oom->largest_free_block_bytes, "bytes"});
    }
    finding.metrics.push_back(
        {"request_exceeds_limit", oom_case == OomCase::kRequestExceedsLimit ? 1.0 : 0.0, "bool"});
    finding.metrics.push_back({"fragmented", oom_case == OomCase::kFragmented ? 1.0 : 0.0, "bool"});
    finding.metrics.push_back({"oom_events", static_cast<double>(ooms.size()), "count"});
    if (ooms.size() > 1) {
      explanation += "The first of " + std::to_string(ooms.size()) +
                     " out-of-memory events (a run that retries with smaller batches has one per "
                     "try). ";
    }
    explanation += "At the failure " + live_text + " were alive";
  } else {
    finding.title = "Memory peak of " + live_text + " alive; largest consumer: " + largest;
    explanation = "At the peak " + live_text + " were alive";
  }
  if (state.reserved > 0) {
    explanation += " (allocator: " + format_bytes(static_cast<double>(state.allocated)) +
                   " allocated of " + format_bytes(static_cast<double>(state.reserved)) +
                   " reserved, " + format_percent(fragmentation) + " fragmentation)";
  }
  explanation += ". Largest owners:" + list_sites(trace, state);

  // Headroom against each device's memory, when the trace names it (Kineto's deviceProperties).
  for (const DevicePeak& device : device_peaks(trace)) {
    if (!device.total_bytes) continue;
    const double headroom =
        static_cast<double>(*device.total_bytes) - static_cast<double>(device.peak_bytes);
    const std::string name = "device_" + std::to_string(device.device);
    finding.metrics.push_back(
        {name + "_peak_bytes", static_cast<double>(device.peak_bytes), "bytes"});
    finding.metrics.push_back(
        {name + "_total_bytes", static_cast<double>(*device.total_bytes), "bytes"});
    finding.metrics.push_back({name + "_headroom_bytes", headroom, "bytes"});
    explanation +=
        " GPU " + std::to_string(device.device) + " peaks at " +
        format_bytes(static_cast<double>(device.peak_bytes)) + " of its " +
        format_bytes(static_cast<double>(*device.total_bytes)) + ", " + format_bytes(headroom) +
        " (" + format_percent(headroom / static_cast<double>(*device.total_bytes)) + ") headroom.";
  }
  finding.explanation = explanation;

  std::string advice;
  if (oom && oom->limit_bytes) {
    if (const auto fit = fit_largest_batch(step_demands(trace, context.memory_order(), steps, ooms),
                                           *oom->limit_bytes)) {
      add_batch_fit(finding, *fit, oom->batch_size);
    }
  }
  if (oom_case == OomCase::kFragmented) {
    advice +=
        "Release cached blocks (empty_cache) before the large request, or allocate large buffers "
        "once and "
        "reuse them. ";
  } else if (fragmentation > 0.3) {
    advice +=
        "Over 30% of reserved memory is free but fragmented: release cached blocks or allocate "
        "large buffers once. ";
  }
  if (oom_case != OomCase::kRequestExceedsLimit && !state.sites.empty()) {
    advice +=
        "Start with the largest owner, " + largest + " (" +
        format_bytes(static_cast<double>(state.sites.front().bytes)) +
        "): free it earlier, keep fewer copies alive, or recompute it (activation checkpointing).";
  }
  finding.recommendation += advice;
  while (!finding.recommendation.empty() && finding.recommendation.back() == ' ') {
    finding.recommendation.pop_back();
  }
  return {finding};
}

extern constinit const Analysis kMemoryAnalysis{
    "memory", kFindingKinds, {}, &findings_of<&find_memory_pressure>};

}  // namespace tscope::analyzer
