#include "tscope/analyzer/oom.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>

#include "allocation_category.h"
#include "memory_replay.h"
#include "tscope/analyzer/units.h"

namespace tscope::analyzer {
namespace {

using trace::EventKind;
using trace::EventRef;

constexpr std::size_t kTopSites = 5;

struct OomEvent {
  EventRef ref;
  trace::TimeNs time = 0;
  std::optional<double> requested_bytes;
  std::optional<double> limit_bytes;
  std::optional<double> batch_size;
};

bool names_oom(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("out of memory") != std::string::npos || lower.find("oom") != std::string::npos;
}

std::optional<double> numeric_arg(const trace::Trace& trace, trace::ArgRange args, std::string_view key) {
  for (const trace::Arg& arg : trace.args(args)) {
    if (trace.string(arg.key) != key) continue;
    if (const auto* integer = std::get_if<std::int64_t>(&arg.value)) return static_cast<double>(*integer);
    if (const auto* real = std::get_if<double>(&arg.value)) return *real;
  }
  return std::nullopt;
}

std::optional<OomEvent> first_oom(const trace::Trace& trace) {
  std::optional<OomEvent> found;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::InstantColumns& instants = trace.track(track_index).instants();
    for (std::uint32_t i = 0; i < instants.size(); ++i) {
      if (!names_oom(trace.string(instants.name[i]))) continue;
      if (found && found->time <= instants.time[i]) continue;
      OomEvent event;
      event.ref = {EventKind::kInstant, track_index, i};
      event.time = instants.time[i];
      event.requested_bytes = numeric_arg(trace, instants.args[i], "requested_bytes");
      event.limit_bytes = numeric_arg(trace, instants.args[i], "limit_bytes");
      event.batch_size = numeric_arg(trace, instants.args[i], "batch_size");
      found = event;
    }
  }
  return found;
}

struct SiteBytes {
  AllocationSite site;
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

MemoryState summarize(const trace::Trace& trace, const MemoryReplay& replay) {
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
      const auto category = allocation_category(trace.string(allocation.site.owner_op),
                                                trace.string(allocation.site.scope));
      state.by_category[static_cast<std::size_t>(category)] += allocation.bytes;
    }
  }
  if (replay.anonymous_bytes() > 0) {
    // Address-less events carry no site: their net bytes are one unattributed block.
    SiteBytes& site = sites[{trace::kEmptyString, trace::kEmptyString}];
    site.bytes += replay.anonymous_bytes();
    state.by_category[static_cast<std::size_t>(AllocationCategory::kUnattributed)] += replay.anonymous_bytes();
  }
  for (auto& [key, site] : sites) state.sites.push_back(site);
  std::sort(state.sites.begin(), state.sites.end(),
            [](const SiteBytes& a, const SiteBytes& b) { return a.bytes > b.bytes; });
  state.live = replay.live_bytes();
  state.allocated = replay.reported_allocated();
  state.reserved = replay.reported_reserved();
  return state;
}

}  // namespace

std::vector<Finding> find_memory_pressure(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  MemoryReplay replay(trace);
  if (replay.empty()) return {};
  std::optional<OomEvent> oom = first_oom(trace);
  if (oom && !oom->batch_size) {
    // The allocator does not know the batch; the step it failed in may say.
    const StepSet& steps = context.steps();
    const std::size_t step = steps.step_at(oom->time);
    if (step < steps.steps.size() && steps.steps[step].span) {
      const trace::EventRef span = *steps.steps[step].span;
      const std::uint32_t detail = trace.track(span.track).spans().detail[span.index];
      if (detail != trace::kNoIndex) {
        oom->batch_size = numeric_arg(trace, trace.span_details()[detail].args, "batch_size");
      }
    }
  }

  // The peak of live bytes, and where in the event order it was reached.
  std::size_t peak_position = 0;
  std::uint64_t peak = 0;
  {
    MemoryReplay scan(trace);
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
  const MemoryState state = summarize(trace, replay);

  Finding finding;
  finding.kind = oom ? "oom" : "memory_peak";
  finding.severity = oom ? Severity::kHigh : Severity::kInfo;
  finding.cost.bytes = state.live;
  if (oom) finding.evidence.push_back(oom->ref);
  for (std::size_t i = 0; i < std::min(kTopSites, state.sites.size()); ++i) {
    if (state.sites[i].count > 0) finding.evidence.push_back(state.sites[i].largest);
  }
  const std::string largest = state.sites.empty() ? "nothing" : site_label(trace, state.sites.front().site);
  finding.title = (oom ? "Out of memory with " : "Memory peak of ") + format_bytes(static_cast<double>(state.live)) +
                  " alive; largest consumer: " + largest;
  finding.metrics = {{"live_bytes", static_cast<double>(state.live), "bytes"},
                     {"peak_live_bytes", static_cast<double>(peak), "bytes"},
                     {"allocated_bytes", static_cast<double>(state.allocated), "bytes"},
                     {"reserved_bytes", static_cast<double>(state.reserved), "bytes"}};
  const double fragmentation =
      state.reserved > 0 ? 1.0 - static_cast<double>(state.allocated) / static_cast<double>(state.reserved) : 0;
  finding.metrics.push_back({"fragmentation", fragmentation, "ratio"});
  if (!state.sites.empty()) {
    finding.metrics.push_back({"largest_site_bytes", static_cast<double>(state.sites.front().bytes), "bytes"});
  }
  for (std::size_t category = 0; category < kAllocationCategoryCount; ++category) {
    if (state.by_category[category] == 0) continue;
    finding.metrics.push_back({"bytes_" + std::string(to_string(static_cast<AllocationCategory>(category))),
                               static_cast<double>(state.by_category[category]), "bytes"});
  }

  std::string explanation = oom ? "At the out-of-memory event " : "At the peak ";
  explanation += format_bytes(static_cast<double>(state.live)) + " were alive";
  if (state.reserved > 0) {
    explanation += " (allocator: " + format_bytes(static_cast<double>(state.allocated)) + " allocated of " +
                   format_bytes(static_cast<double>(state.reserved)) + " reserved, " +
                   format_percent(fragmentation) + " fragmentation)";
  }
  explanation += ". Largest owners:";
  for (std::size_t i = 0; i < std::min(kTopSites, state.sites.size()); ++i) {
    explanation += (i == 0 ? " " : "; ") + site_label(trace, state.sites[i].site) + " " +
                   format_bytes(static_cast<double>(state.sites[i].bytes)) + " in " +
                   std::to_string(state.sites[i].count) + " blocks";
  }
  explanation += ". By category:";
  for (std::size_t category = 0; category < kAllocationCategoryCount; ++category) {
    if (state.by_category[category] == 0) continue;
    explanation += " " + std::string(to_string(static_cast<AllocationCategory>(category))) + " " +
                   format_bytes(static_cast<double>(state.by_category[category])) + ";";
  }
  explanation.back() = '.';
  finding.explanation = explanation;

  const std::uint64_t activations = state.by_category[static_cast<std::size_t>(AllocationCategory::kActivations)];
  std::string advice;
  if (oom && oom->batch_size && oom->limit_bytes && activations > 0 && *oom->batch_size > 0) {
    // Activations scale with the batch; everything else does not.
    const double per_sample = (static_cast<double>(activations) + oom->requested_bytes.value_or(0)) / *oom->batch_size;
    const double fixed = static_cast<double>(state.live - activations);
    const double fits = std::floor((*oom->limit_bytes - fixed) / per_sample);
    finding.metrics.push_back({"activation_bytes_per_sample", per_sample, "bytes"});
    finding.metrics.push_back({"largest_batch_that_fits", std::max(0.0, fits), "count"});
    // Only what the step had asked for up to the failing request is known, so this is a bound.
    advice += "Activations up to the failing request take " + format_bytes(per_sample) +
              " per sample: the largest batch that fits under " + format_bytes(*oom->limit_bytes) + " is at most " +
              std::to_string(static_cast<long>(std::max(0.0, fits))) + " (now " +
              std::to_string(static_cast<long>(*oom->batch_size)) + "). ";
  }
  if (fragmentation > 0.3) {
    advice += "Over 30% of reserved memory is free but fragmented: release cached blocks or allocate "
              "large buffers once. ";
  }
  if (!state.sites.empty()) {
    advice += "Start with the largest owner, " + largest + " (" +
              format_bytes(static_cast<double>(state.sites.front().bytes)) +
              "): free it earlier, keep fewer copies alive, or recompute it (activation checkpointing).";
  }
  finding.recommendation = advice;
  if (oom && oom->requested_bytes) {
    finding.metrics.push_back({"requested_bytes", *oom->requested_bytes, "bytes"});
  }
  return {finding};
}

}  // namespace tscope::analyzer
