#include "tscope/analyzer/leaks.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "linear_fit.h"
#include "memory_replay.h"
#include "trace_names.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kLeak = "leak";
constexpr std::string_view kUnfreedAtEnd = "unfreed_at_end";
constexpr std::array kFindingKinds{kLeak, kUnfreedAtEnd};

using SiteKey = std::pair<trace::StringId, trace::StringId>;

// A leak must be visible over at least this many step boundaries.
constexpr std::size_t kMinSteps = 4;
// A line must explain the growth this well (a leak grows step after step, noise does not).
constexpr double kMinRSquared = 0.8;
// A cache grows then plateaus: the second half of the steps must still grow at half the rate.
constexpr double kMinLateGrowth = 0.5;
// Growth smaller than this share of the live bytes over the run is noise, not a leak.
constexpr double kMinRelativeGrowth = 0.01;
constexpr std::size_t kTopSites = 5;

std::string site_label(const trace::Trace& trace, const SiteKey& site) {
  return analyzer::site_label(trace, AllocationSite{site.first, site.second});
}

bool grows_steadily(const std::vector<double>& series, const LinearFit& fit, double reference) {
  if (fit.slope <= 0 || fit.r_squared < kMinRSquared) return false;
  const std::size_t half = series.size() / 2;
  const double late_growth = series.back() - series[half];
  const double expected = fit.slope * static_cast<double>(series.size() - 1 - half);
  const double total_growth = fit.slope * static_cast<double>(series.size() - 1);
  return late_growth >= kMinLateGrowth * expected && total_growth >= kMinRelativeGrowth * reference;
}

// The sites whose bytes at the step ends rise and fall with no line through them: data in flight,
// such as the batches a loader has queued ahead, one more or fewer at a step's end as its threads
// keep up or fall behind. Their swings of whole batches can hide a leak of a few KiB per step in
// the total. A site that holds still, or follows a line up or down, is not one of them.
std::set<SiteKey> sites_without_trend(const std::map<SiteKey, std::vector<double>>& by_site) {
  std::set<SiteKey> sites;
  for (const auto& [site, series] : by_site) {
    const bool holds_still =
        std::adjacent_find(series.begin(), series.end(), std::not_equal_to<>()) == series.end();
    if (!holds_still && fit_line(series).r_squared < kMinRSquared) sites.insert(site);
  }
  return sites;
}

// Blocks allocated once the steps began and never freed by the end of the trace, by site. Info
// only: a trace may simply end before its last tensors go away.
std::optional<Finding> unfreed_at_end(const trace::Trace& trace, const StepSet& steps,
                                      MemoryReplay& replay) {
  replay.advance_to(replay.event_count());
  std::map<SiteKey, std::pair<std::uint64_t, std::uint64_t>> by_site;  // bytes, blocks
  std::vector<EventRef> evidence;
  std::uint64_t bytes = 0;
  std::uint64_t blocks = 0;
  for (const auto& [track, pool] : replay.live()) {
    for (const auto& [address, allocation] : pool) {
      if (allocation.time < steps.steps.front().start) continue;
      auto& site = by_site[{allocation.site.owner_op, allocation.site.scope}];
      site.first += allocation.bytes;
      ++site.second;
      bytes += allocation.bytes;
      ++blocks;
      if (evidence.size() < kTopSites) evidence.push_back(allocation.event);
    }
  }
  if (blocks == 0) return std::nullopt;
  std::vector<std::pair<SiteKey, std::pair<std::uint64_t, std::uint64_t>>> sites(by_site.begin(),
                                                                                 by_site.end());
  std::sort(sites.begin(), sites.end(),
            [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  Finding finding;
  finding.kind = kUnfreedAtEnd;
  finding.severity = Severity::kInfo;
  finding.cost.bytes = bytes;
  finding.title = std::to_string(blocks) + " blocks (" + format_bytes(static_cast<double>(bytes)) +
                  ") allocated during the steps are never freed";
  finding.evidence = std::move(evidence);
  finding.metrics = {{"blocks", static_cast<double>(blocks), "count"},
                     {"bytes", static_cast<double>(bytes), "bytes"}};
  std::string listed;
  for (std::size_t i = 0; i < std::min(kTopSites, sites.size()); ++i) {
    listed += (i == 0 ? "" : "; ") + site_label(trace, sites[i].first) + " " +
              format_bytes(static_cast<double>(sites[i].second.first)) + " in " +
              std::to_string(sites[i].second.second) + " blocks";
  }
  finding.explanation = "Still alive when the trace ends: " + listed + ".";
  finding.recommendation =
      "Expected for model state and the last batch; anything else is held by a reference "
      "that outlives the step.";
  return finding;
}

}  // namespace

std::vector<Finding> find_leaks(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const StepSet& steps = context.steps();
  MemoryReplay replay(trace, context.memory_order());
  if (replay.empty() || steps.whole_trace || steps.steps.size() < kMinSteps) return {};

  std::vector<double> live;
  std::map<SiteKey, std::vector<double>> by_site;
  std::map<SiteKey, EventRef> newest_by_site;
  for (std::size_t boundary = 0; boundary < steps.steps.size(); ++boundary) {
    replay.advance_until(steps.steps[boundary].end, true);
    live.push_back(static_cast<double>(replay.live_bytes()));
    for (const auto& [track, pool] : replay.live()) {
      for (const auto& [address, allocation] : pool) {
        const SiteKey key{allocation.site.owner_op, allocation.site.scope};
        std::vector<double>& series = by_site[key];
        series.resize(steps.steps.size(), 0);
        series[boundary] += static_cast<double>(allocation.bytes);
        EventRef& newest = newest_by_site[key];
        if (allocation.event.index >= newest.index) newest = allocation.event;
      }
    }
  }
  std::vector<Finding> findings;
  if (auto unfreed = unfreed_at_end(trace, steps, replay)) findings.push_back(std::move(*unfreed));
  const double peak = *std::max_element(live.begin(), live.end());
  // What the finding measures: the bytes alive at the step ends or, where they do not grow
  // steadily, the same without the sites of data in flight, whose swings may hide a leak.
  std::vector<double> retained = live;
  LinearFit fit = fit_line(retained);
  std::set<SiteKey> in_flight;
  if (!grows_steadily(retained, fit, peak)) {
    in_flight = sites_without_trend(by_site);
    if (in_flight.empty()) return findings;
    for (const SiteKey& site : in_flight) {
      const std::vector<double>& series = by_site.at(site);
      for (std::size_t boundary = 0; boundary < retained.size(); ++boundary)
        retained[boundary] -= series[boundary];
    }
    fit = fit_line(retained);
    if (!grows_steadily(retained, fit, peak)) return findings;
  }

  struct SiteGrowth {
    SiteKey site;
    LinearFit fit;
  };
  std::vector<SiteGrowth> growing;
  for (const auto& [site, series] : by_site) {
    const LinearFit site_fit = fit_line(series);
    if (site_fit.slope > 0 && !in_flight.contains(site)) growing.push_back({site, site_fit});
  }
  std::sort(growing.begin(), growing.end(),
            [](const SiteGrowth& a, const SiteGrowth& b) { return a.fit.slope > b.fit.slope; });

  Finding finding;
  finding.kind = kLeak;
  const double growth = fit.slope * static_cast<double>(retained.size() - 1);
  finding.severity = growth >= 0.1 * retained.front() ? Severity::kHigh : Severity::kMedium;
  finding.cost.bytes = static_cast<std::uint64_t>(fit.slope);
  const std::string top = growing.empty() ? "(unknown)" : site_label(trace, growing.front().site);
  finding.title =
      "Memory grows by " + format_bytes(fit.slope) + " per step; fastest-growing site: " + top;
  finding.metrics = {{"growth_bytes_per_step", fit.slope, "bytes"},
                     {"r_squared", fit.r_squared, "ratio"},
                     {"steps", static_cast<double>(retained.size()), "count"},
                     {"first_boundary_bytes", retained.front(), "bytes"},
                     {"last_boundary_bytes", retained.back(), "bytes"}};
  if (!growing.empty())
    finding.metrics.push_back(
        {"top_site_growth_bytes_per_step", growing.front().fit.slope, "bytes"});
  std::string sites;
  for (std::size_t i = 0; i < std::min(kTopSites, growing.size()); ++i) {
    sites += (i == 0 ? "" : "; ") + site_label(trace, growing[i].site) + " +" +
             format_bytes(growing[i].fit.slope) + "/step";
    finding.evidence.push_back(newest_by_site[growing[i].site]);
  }
  std::string left_out;
  for (const SiteKey& site : in_flight)
    left_out += (left_out.empty() ? "" : "; ") + site_label(trace, site);
  finding.explanation = "Bytes alive at the end of each step" +
                        (left_out.empty() ? std::string()
                                          : " (less what " + left_out +
                                                " holds there, rising and falling with no trend "
                                                "like data in flight)") +
                        " grow from " + format_bytes(retained.front()) + " to " +
                        format_bytes(retained.back()) + " over " + std::to_string(retained.size()) +
                        " steps, a steady " + format_bytes(fit.slope) + " per step (line fit R² " +
                        std::to_string(fit.r_squared).substr(0, 4) +
                        ", still growing in the later "
                        "steps, so not a cache filling up). Growing sites: " +
                        sites + ".";
  finding.recommendation =
      "Find what keeps " + top +
      " alive across steps: a tensor appended to a list or "
      "accumulated with its graph (total_loss += loss instead of loss.item()), a "
      "cache without a bound. The evidence points at the newest surviving block of each site.";
  finding.estimated_gain_bytes = static_cast<std::uint64_t>(std::max(0.0, growth));
  findings.insert(findings.begin(), std::move(finding));
  return findings;
}

extern constinit const Analysis kLeaksAnalysis{
    "leaks", kFindingKinds, {}, &findings_of<&find_leaks>};

}  // namespace tscope::analyzer
