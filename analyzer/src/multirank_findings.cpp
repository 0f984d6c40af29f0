// Findings across ranks. A straggler is the rank that reaches collectives last most often, and
// more often than chance would let any of the ranks be (in a balanced run each is last now and
// then); its cost is what the others wait for it; its cause is the part of its own step that
// exceeds the median of the other ranks. Exposed communication is collective time that no compute
// hides, less the waiting a straggler already accounts for. Load imbalance is unequal work per step
// (step time less collective waits) that no single straggler explains. Each points at one event of
// one rank's trace: the straggler's latest arrival, the longest exposed communication, the busiest
// rank's slowest step.

#include "multirank_findings.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "order_statistics.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

struct Cause {
  std::string_view name;
  std::string_view kind_suffix;
  double (*figure)(const TimeBreakdown&);
  std::string_view fix;
};

// In the order a tie is resolved.
constexpr std::array kCauses{
    Cause{"host overhead", "host", [](const TimeBreakdown& time) { return time.host_other_ns; },
          "Find the host work outside operators on this rank (user ranges, Python code, logging, "
          "checkpointing, extra work only it does) and move it out of the training loop or spread "
          "it over all ranks; its own `tscope analyze` shows where its host time goes."},
    Cause{"input wait", "input", [](const TimeBreakdown& time) { return time.host_data_wait_ns; },
          "This rank waits for its input: add loader workers or prefetching, or reshard the data "
          "so that no rank's shard is slower to load."},
    Cause{
        "compute", "compute",
        [](const TimeBreakdown& time) {
          return time.has_gpu ? time.gpu_compute_ns : time.host_ops_ns;
        },
        "This rank computes more per step: give every rank equal work (equal shards, batch sizes, "
        "sequence lengths), or check its device (clocks, throttling, a slower model of GPU)."},
    Cause{"GPU idle", "gpu_idle",
          [](const TimeBreakdown& time) {
            return time.has_gpu ? time.gpu_idle_host_wait_ns + time.gpu_idle_kernel_wait_ns +
                                      time.gpu_idle_other_ns
                                : 0.0;
          },
          "This rank's GPU sits idle between kernels (launch overhead, synchronizations): see the "
          "launch and copy findings of its own `tscope analyze`."},
};

// "0.0021", "3.1e-07": probabilities too small for a percentage.
std::string format_probability(double probability) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.2g", probability);
  return text.data();
}

// The chance below which a rank's count of last arrivals is taken as a habit, not luck.
constexpr double kStragglerSignificance = 0.01;

double median_of(const std::vector<RankReport>& ranks, auto&& figure,
                 const RankReport* except = nullptr) {
  std::vector<double> values;
  for (const RankReport& rank : ranks) {
    if (&rank != except) values.push_back(figure(rank));
  }
  return median(std::move(values));
}

void point_at(Finding& finding, const RankReport& rank, std::optional<trace::EventRef> event) {
  if (!event) return;
  finding.evidence = {*event};
  finding.evidence_rank = rank.rank;
}

std::optional<Finding> straggler(const MultiRankReport& report, double step_ns) {
  if (report.collectives.empty() || report.ranks.size() < 2) return std::nullopt;
  std::size_t counted = 0;
  for (const RankReport& rank : report.ranks)
    counted += rank.last_arrivals;
  const auto slowest = std::max_element(
      report.ranks.begin(), report.ranks.end(),
      [](const RankReport& a, const RankReport& b) { return a.last_arrivals < b.last_arrivals; });
  if (slowest->last_arrivals == 0) return std::nullopt;
  // Were the ranks equal, each would be last at a collective with probability 1/N: the slowest
  // is named only when its count would come about by chance for any of the N ranks less than
  // once in kStragglerSignificance runs (the tail bound times N, a Bonferroni correction).
  const std::size_t ranks = report.ranks.size();
  const double chance = std::min(
      1.0, static_cast<double>(ranks) * binomial_upper_tail(slowest->last_arrivals, counted,
                                                            1.0 / static_cast<double>(ranks)));
  if (chance > kStragglerSignificance) return std::nullopt;
  const RankReport& rank = *slowest;
  const Cause* cause = nullptr;
  double cause_excess = 0;
  Finding finding;
  for (const Cause& candidate : kCauses) {
    const double own = candidate.figure(rank.time);
    const double others = median_of(
        report.ranks, [&](const RankReport& other) { return candidate.figure(other.time); }, &rank);
    const double excess = own - others;
    finding.metrics.push_back(
        {"excess_" + std::string(candidate.kind_suffix) + "_ns", excess, "ns"});
    if (excess > cause_excess) {
      cause = &candidate;
      cause_excess = excess;
    }
  }
  // Net of what it waits for the others itself: in a balanced run every rank is last now and then.
  const double waited = std::max(0.0, rank.others_wait_ns_per_step - rank.wait_ns_per_step);
  // What fixing this rank can win is at most the work it does beyond the median rank: a wait
  // longer than that comes from the ranks' schedule (one leaving each collective later and so
  // arriving later at the next), not from this rank's work.
  const double lost = std::min(waited, cause_excess);
  finding.kind = "straggler";
  finding.cost.time_per_step_ns = lost;
  finding.cost.share_of_step = step_ns > 0 ? lost / step_ns : 0;
  finding.severity = severity_for_share(finding.cost.share_of_step);
  finding.estimated_gain_ns_per_step = lost;
  const std::string cause_name = cause != nullptr ? std::string(cause->name) : "unknown";
  finding.title = "Rank " + std::to_string(rank.rank) + " is a straggler (" + cause_name +
                  "): the other ranks lose " + format_duration(lost) + " per step to it";
  finding.explanation =
      "Rank " + std::to_string(rank.rank) + " reaches " + std::to_string(rank.last_arrivals) +
      " of " + std::to_string(counted) +
      " collectives within steps last (by chance, some rank would do so with probability " +
      format_probability(chance) + "), and the other ranks wait for it, net of its own waits, " +
      format_duration(waited) + " per step; its extra work accounts for " + format_duration(lost) +
      " of that (" + format_percent(finding.cost.share_of_step) + " of the median step). " +
      (cause != nullptr
           ? "Against the median of the other ranks its step has " + format_duration(cause_excess) +
                 " more " + std::string(cause->name) + " per step."
           : "No part of its step exceeds the median of the other ranks.");
  finding.recommendation =
      cause != nullptr
          ? std::string(cause->fix)
          : "Compare this rank's own `tscope analyze` with another rank's to find what delays it.";
  finding.metrics.insert(finding.metrics.begin(),
                         {{"rank", static_cast<double>(rank.rank), "rank"},
                          {"last_arrivals", static_cast<double>(rank.last_arrivals), "count"},
                          {"collectives_in_steps", static_cast<double>(counted), "count"},
                          {"chance_of_count", chance, "ratio"},
                          {"others_wait_ns_per_step", rank.others_wait_ns_per_step, "ns"},
                          {"net_wait_ns_per_step", waited, "ns"},
                          {"own_wait_ns_per_step", rank.wait_ns_per_step, "ns"},
                          {"cause_excess_ns", cause_excess, "ns"}});
  if (cause != nullptr) finding.kind += "." + std::string(cause->kind_suffix);
  point_at(finding, rank, rank.latest_arrival);
  return finding;
}

std::optional<Finding> exposed_communication(const MultiRankReport& report, double step_ns) {
  std::vector<double> exposed;
  std::vector<double> hideable;
  std::vector<double> overlap;
  const RankReport* most_exposed = nullptr;
  for (const RankReport& rank : report.ranks) {
    if (rank.overlap.longest_exposed &&
        (most_exposed == nullptr ||
         rank.overlap.longest_exposed_ns > most_exposed->overlap.longest_exposed_ns)) {
      most_exposed = &rank;
    }
    // Within the steps only: set-up collectives before the first step (the parameter broadcast,
    // waiting for every process to start) are not paid per step.
    const OverlapTimes& in_steps = rank.overlap.in_steps;
    if (in_steps.communication_ns <= 0) continue;
    const double steps = static_cast<double>(std::max<std::size_t>(rank.steps.count, 1));
    const double rank_exposed = (in_steps.communication_ns - in_steps.overlapped_ns) / steps;
    exposed.push_back(std::max(0.0, rank_exposed - rank.wait_ns_per_step));
    hideable.push_back(std::max(0.0, (in_steps.compute_ns - in_steps.overlapped_ns) / steps));
    overlap.push_back(in_steps.share());
  }
  if (exposed.empty()) return std::nullopt;
  Finding finding;
  finding.kind = "exposed_communication";
  finding.cost.time_per_step_ns = median(exposed);
  finding.cost.share_of_step = step_ns > 0 ? finding.cost.time_per_step_ns / step_ns : 0;
  finding.severity = severity_for_share(finding.cost.share_of_step);
  finding.estimated_gain_ns_per_step = std::min(finding.cost.time_per_step_ns, median(hideable));
  finding.title = "Communication runs exposed for " +
                  format_duration(finding.cost.time_per_step_ns) + " per step; compute hides " +
                  format_percent(median(overlap)) + " of it";
  finding.explanation =
      "On the median rank, " + format_percent(median(overlap)) +
      " of communication time within steps has compute running alongside (Holistic Trace Analysis' "
      "overlap); the rest, less what ranks wait for later ranks, stalls the step. Compute that "
      "does not yet overlap communication could hide up to " +
      format_duration(finding.estimated_gain_ns_per_step) + " of it per step.";
  finding.recommendation =
      "Overlap communication with compute: start each gradient bucket's allreduce asynchronously "
      "as soon as its gradients are ready during backward (PyTorch DDP does; in our engine, the "
      "data-parallel wrapper's overlap switch), and use smaller buckets (25 MiB by default) so "
      "that the first starts earlier; only the last bucket then stays exposed.";
  finding.metrics = {{"exposed_ns_per_step", finding.cost.time_per_step_ns, "ns"},
                     {"overlap_share", median(overlap), "ratio"},
                     {"hideable_ns_per_step", median(hideable), "ns"}};
  if (most_exposed != nullptr)
    point_at(finding, *most_exposed, most_exposed->overlap.longest_exposed);
  return finding;
}

std::optional<Finding> load_imbalance(const MultiRankReport& report, double step_ns,
                                      bool straggler_named) {
  if (report.ranks.size() < 2) return std::nullopt;
  const auto work = [](const RankReport& rank) {
    return rank.steps.mean_ns - rank.wait_ns_per_step;
  };
  const auto most =
      std::max_element(report.ranks.begin(), report.ranks.end(),
                       [&](const RankReport& a, const RankReport& b) { return work(a) < work(b); });
  const auto least =
      std::min_element(report.ranks.begin(), report.ranks.end(),
                       [&](const RankReport& a, const RankReport& b) { return work(a) < work(b); });
  const double spread = work(*most) - median_of(report.ranks, work);
  Finding finding;
  finding.kind = "load_imbalance";
  finding.cost.time_per_step_ns = spread;
  finding.cost.share_of_step = step_ns > 0 ? spread / step_ns : 0;
  // A straggler finding already counts this time; saying it twice would rank it twice.
  finding.severity =
      straggler_named ? Severity::kInfo : severity_for_share(finding.cost.share_of_step);
  finding.estimated_gain_ns_per_step = straggler_named ? 0 : spread;
  finding.title = "Work per step differs across ranks: from " + format_duration(work(*least)) +
                  " (rank " + std::to_string(least->rank) + ") to " + format_duration(work(*most)) +
                  " (rank " + std::to_string(most->rank) + ")";
  finding.explanation =
      "Work per step is the step time less the time a rank waits in collectives for others. The "
      "busiest rank does " +
      format_duration(spread) +
      " more per step than the median rank, and every rank waits for it." +
      (straggler_named ? " The straggler finding accounts for this time." : "");
  finding.recommendation =
      "Give every rank the same work: equal shards and batch sizes, sequence lengths bucketed "
      "alike, the same model partition size; then compare the busiest rank's own `tscope analyze` "
      "with the median rank's.";
  finding.metrics = {{"max_work_ns", work(*most), "ns"},
                     {"median_work_ns", median_of(report.ranks, work), "ns"},
                     {"min_work_ns", work(*least), "ns"}};
  point_at(finding, *most, most->slowest_step);
  return finding;
}

}  // namespace

std::vector<Finding> find_multirank_problems(const MultiRankReport& report) {
  const double step_ns = report.step_time.median_ns;
  std::vector<Finding> findings;
  bool straggler_named = false;
  if (auto found = straggler(report, step_ns)) {
    straggler_named = found->severity >= Severity::kLow;
    findings.push_back(std::move(*found));
  }
  if (auto found = exposed_communication(report, step_ns)) findings.push_back(std::move(*found));
  if (auto found = load_imbalance(report, step_ns, straggler_named))
    findings.push_back(std::move(*found));
  return findings;
}

}  // namespace tscope::analyzer
