// The cross-rank pass: ranks assigned and checked, clocks aligned, collectives matched and
// measured. Works on RankSummary records only, never on a trace.

#include "tscope/analyzer/multirank.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "multirank_findings.h"
#include "order_statistics.h"

namespace tscope::analyzer {
namespace {

// Checks that the summaries are one run and gives each its rank; returns the world size.
std::size_t assign_ranks(std::vector<RankSummary>& summaries) {
  const RankSummary* with_rank = nullptr;
  const RankSummary* without_rank = nullptr;
  const RankSummary* with_run = nullptr;
  const RankSummary* with_world = nullptr;
  for (const RankSummary& summary : summaries) {
    (summary.rank ? with_rank : without_rank) = &summary;
    if (!summary.run_id.empty()) {
      if (with_run != nullptr && with_run->run_id != summary.run_id) {
        throw RankSetError("traces of different runs mixed: " + with_run->source + " has run_id " +
                           with_run->run_id + ", " + summary.source + " has run_id " +
                           summary.run_id);
      }
      with_run = &summary;
    }
    if (summary.world_size) {
      if (with_world != nullptr && *with_world->world_size != *summary.world_size) {
        throw RankSetError("traces of different runs mixed: " + with_world->source +
                           " has world size " + std::to_string(*with_world->world_size) + ", " +
                           summary.source + " has " + std::to_string(*summary.world_size));
      }
      with_world = &summary;
    }
  }
  if (with_rank != nullptr && without_rank != nullptr) {
    throw RankSetError(without_rank->source + " has no rank in its metadata while " +
                       with_rank->source + " has rank " + std::to_string(*with_rank->rank) +
                       ": give the traces of one run");
  }
  // Without metadata, the order given is the rank order.
  for (std::size_t index = 0; index < summaries.size(); ++index) {
    if (!summaries[index].rank) summaries[index].rank = static_cast<int>(index);
  }
  std::sort(summaries.begin(), summaries.end(),
            [](const RankSummary& a, const RankSummary& b) { return *a.rank < *b.rank; });
  for (std::size_t index = 1; index < summaries.size(); ++index) {
    if (*summaries[index].rank == *summaries[index - 1].rank) {
      throw RankSetError("duplicate rank " + std::to_string(*summaries[index].rank) + ": " +
                         summaries[index - 1].source + " and " + summaries[index].source);
    }
  }
  const std::size_t world_size = with_world != nullptr
                                     ? static_cast<std::size_t>(*with_world->world_size)
                                     : static_cast<std::size_t>(*summaries.back().rank + 1);
  if (static_cast<std::size_t>(*summaries.back().rank) >= world_size) {
    throw RankSetError(summaries.back().source + " is rank " +
                       std::to_string(*summaries.back().rank) + " of a world of " +
                       std::to_string(world_size));
  }
  return world_size;
}

// (group, op or -1 when keyed by sequence number, sequence number or order index)
using MatchKey = std::tuple<std::string, int, std::int64_t>;
// (rank index, collective index) of each rank that has the collective, by rank.
using MatchedRecords = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

struct Matching {
  std::map<MatchKey, MatchedRecords> matched;
  std::size_t unmatched = 0;
  bool by_seq = true;
};

Matching match_collectives(const std::vector<RankSummary>& summaries) {
  // A group is matched by sequence number only when every record of it has one.
  std::map<std::string, bool> group_has_seq;
  std::map<std::string, std::size_t> ranks_with_group;
  for (const RankSummary& summary : summaries) {
    std::set<std::uint16_t> seen;
    for (const CollectiveRecord& record : summary.collectives) {
      auto [entry, added] = group_has_seq.try_emplace(summary.groups[record.group], true);
      entry->second = entry->second && record.seq >= 0;
      if (seen.insert(record.group).second) ++ranks_with_group[summary.groups[record.group]];
    }
  }
  Matching matching;
  std::map<MatchKey, MatchedRecords> all;
  for (std::uint32_t rank_index = 0; rank_index < summaries.size(); ++rank_index) {
    const RankSummary& summary = summaries[rank_index];
    for (std::uint32_t index = 0; index < summary.collectives.size(); ++index) {
      const CollectiveRecord& record = summary.collectives[index];
      const std::string& group = summary.groups[record.group];
      const MatchKey key = group_has_seq[group]
                               ? MatchKey{group, -1, record.seq}
                               : MatchKey{group, static_cast<int>(record.op), record.order};
      all[key].emplace_back(rank_index, index);
    }
  }
  for (const auto& [group, has_seq] : group_has_seq)
    matching.by_seq = matching.by_seq && has_seq;
  for (auto& [key, records] : all) {
    const std::size_t expected = ranks_with_group[std::get<0>(key)];
    // A group only one rank of the set takes part in has nothing to match against.
    if (expected < 2) continue;
    if (records.size() == expected) {
      matching.matched.emplace(key, std::move(records));
    } else {
      ++matching.unmatched;
    }
  }
  return matching;
}

// Ranks on the reference rank's host share its CLOCK_MONOTONIC. Any other host's offset is the
// median, over matched collectives and that host's ranks, of the end time minus the reference
// rank's: a collective's transfer ends at nearly one instant on every rank.
void align_clocks(const std::vector<RankSummary>& summaries, const Matching& matching,
                  std::vector<RankReport>& ranks) {
  const std::string& reference_host = summaries.front().host;
  const auto clock_of = [&](std::size_t rank_index) -> std::optional<std::string> {
    const std::string& host = summaries[rank_index].host;
    if (!host.empty() && host == reference_host) return std::nullopt;
    // A rank with no host name may be anywhere: it gets an offset of its own.
    return host.empty() ? "#" + std::to_string(rank_index) : host;
  };
  std::map<std::string, std::vector<double>> differences;
  for (const auto& [key, records] : matching.matched) {
    if (records.front().first != 0) continue;
    const double reference_end =
        static_cast<double>(summaries[0].collectives[records.front().second].end);
    for (const auto& [rank_index, index] : records) {
      if (const auto clock = clock_of(rank_index)) {
        differences[*clock].push_back(
            static_cast<double>(summaries[rank_index].collectives[index].end) - reference_end);
      }
    }
  }
  for (std::size_t rank_index = 1; rank_index < summaries.size(); ++rank_index) {
    const auto clock = clock_of(rank_index);
    if (!clock) continue;
    RankReport& rank = ranks[rank_index];
    rank.offset_estimated = true;
    const auto found = differences.find(*clock);
    if (found == differences.end()) {
      rank.clock_uncertainty_ns = std::numeric_limits<double>::infinity();
      continue;
    }
    rank.clock_offset_ns = median(found->second);
    rank.clock_uncertainty_ns = median_absolute_deviation(found->second, rank.clock_offset_ns);
  }
}

std::vector<CollectiveGroupStats> summarize_groups(
    const std::vector<MatchedCollective>& collectives) {
  std::map<std::pair<std::string, CollectiveOp>, CollectiveGroupStats> groups;
  std::map<std::pair<std::string, CollectiveOp>, std::size_t> with_bandwidth;
  for (const MatchedCollective& collective : collectives) {
    CollectiveGroupStats& stats = groups[{collective.group, collective.op}];
    stats.group = collective.group;
    stats.op = collective.op;
    ++stats.count;
    stats.mean_skew_ns += collective.skew_ns;
    stats.max_skew_ns = std::max(stats.max_skew_ns, collective.skew_ns);
    stats.mean_transfer_ns += collective.transfer_ns;
    if (collective.bus_bandwidth > 0) {
      stats.mean_bus_bandwidth += collective.bus_bandwidth;
      ++with_bandwidth[{collective.group, collective.op}];
    }
  }
  std::vector<CollectiveGroupStats> out;
  for (auto& [key, stats] : groups) {
    stats.mean_skew_ns /= static_cast<double>(stats.count);
    stats.mean_transfer_ns /= static_cast<double>(stats.count);
    if (const std::size_t known = with_bandwidth[key]; known > 0)
      stats.mean_bus_bandwidth /= static_cast<double>(known);
    out.push_back(stats);
  }
  return out;
}

}  // namespace

double bus_bandwidth(CollectiveOp op, double bytes, double seconds, std::size_t ranks) {
  if (bytes <= 0 || seconds <= 0 || ranks == 0) return 0;
  const double algorithm_bandwidth = bytes / seconds;
  const double n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::kAllReduce:
      return algorithm_bandwidth * 2 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
      return algorithm_bandwidth * (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
      return algorithm_bandwidth;
    default:
      return 0;
  }
}

MultiRankReport analyze_ranks(std::vector<RankSummary> summaries) {
  if (summaries.empty()) throw RankSetError("no traces to analyze");
  MultiRankReport report;
  report.world_size = assign_ranks(summaries);
  std::set<int> present;
  for (const RankSummary& summary : summaries) {
    present.insert(*summary.rank);
    if (report.run_id.empty()) report.run_id = summary.run_id;
    if (report.backend.empty()) report.backend = summary.backend;
  }
  for (int rank = 0; rank < static_cast<int>(report.world_size); ++rank) {
    if (!present.contains(rank)) report.absent_ranks.push_back(rank);
  }
  for (const RankSummary& summary : summaries) {
    RankReport& rank = report.ranks.emplace_back();
    rank.rank = *summary.rank;
    rank.source = summary.source;
    rank.host = summary.host;
    rank.steps = summary.steps;
    rank.step_times = summary.step_times;
    rank.slowest_step = summary.slowest_step;
    rank.time = summary.time;
    rank.overlap = summary.overlap;
    rank.collectives = summary.collectives.size();
  }

  const Matching matching = match_collectives(summaries);
  report.matched_by_seq = matching.by_seq;
  report.unmatched_collectives = matching.unmatched;
  report.ranks.front().clock_reference = true;
  align_clocks(summaries, matching, report.ranks);

  std::vector<double> wait_ns(summaries.size(), 0);
  std::vector<double> others_wait_ns(summaries.size(), 0);
  for (const auto& [key, records] : matching.matched) {
    MatchedCollective collective;
    collective.group = std::get<0>(key);
    collective.ranks = records.size();
    double first = std::numeric_limits<double>::infinity();
    double last = -first;
    double last_end = -first;
    std::size_t group_size = 0;
    for (const auto& [rank_index, index] : records) {
      const CollectiveRecord& record = summaries[rank_index].collectives[index];
      const double offset = report.ranks[rank_index].clock_offset_ns;
      const double arrival = static_cast<double>(record.arrival) - offset;
      first = std::min(first, arrival);
      if (arrival > last) {
        last = arrival;
        collective.last_rank = report.ranks[rank_index].rank;
      }
      last_end = std::max(last_end, static_cast<double>(record.end) - offset);
      collective.op = record.op;
      collective.seq = record.seq;
      collective.order = record.order;
      collective.bytes = std::max(collective.bytes, record.bytes);
      group_size = std::max<std::size_t>(group_size, record.group_size);
    }
    collective.skew_ns = last - first;
    collective.transfer_ns = std::max(0.0, last_end - last);
    collective.bus_bandwidth = bus_bandwidth(
        collective.op, static_cast<double>(collective.bytes), collective.transfer_ns * 1e-9,
        group_size > 0 ? group_size
                       : (collective.group.empty() ? report.world_size : records.size()));
    report.collectives.push_back(collective);
    const bool in_steps = std::all_of(records.begin(), records.end(), [&](const auto& entry) {
      return summaries[entry.first].collectives[entry.second].in_step;
    });
    if (!in_steps) continue;
    std::size_t last_index = 0;
    std::uint32_t last_record = 0;
    double others = 0;
    for (const auto& [rank_index, index] : records) {
      const double arrival = static_cast<double>(summaries[rank_index].collectives[index].arrival) -
                             report.ranks[rank_index].clock_offset_ns;
      wait_ns[rank_index] += last - arrival;
      others += last - arrival;
      if (report.ranks[rank_index].rank == collective.last_rank) {
        last_index = rank_index;
        last_record = index;
      }
    }
    if (collective.skew_ns > 0) {
      RankReport& last_rank = report.ranks[last_index];
      ++last_rank.last_arrivals;
      others_wait_ns[last_index] += others / static_cast<double>(records.size() - 1);
      if (!last_rank.latest_arrival || collective.skew_ns > last_rank.latest_arrival_skew_ns) {
        last_rank.latest_arrival = summaries[last_index].collectives[last_record].span;
        last_rank.latest_arrival_skew_ns = collective.skew_ns;
      }
    }
  }
  std::vector<double> step_means;
  for (std::size_t rank_index = 0; rank_index < summaries.size(); ++rank_index) {
    RankReport& rank = report.ranks[rank_index];
    const double steps = static_cast<double>(std::max<std::size_t>(rank.steps.count, 1));
    rank.wait_ns_per_step = wait_ns[rank_index] / steps;
    rank.others_wait_ns_per_step = others_wait_ns[rank_index] / steps;
    step_means.push_back(rank.steps.mean_ns);
  }
  report.step_time = {*std::min_element(step_means.begin(), step_means.end()), median(step_means),
                      *std::max_element(step_means.begin(), step_means.end())};
  report.collective_groups = summarize_groups(report.collectives);
  report.findings = find_multirank_problems(report);
  sort_by_cost(report.findings);
  return report;
}

}  // namespace tscope::analyzer
