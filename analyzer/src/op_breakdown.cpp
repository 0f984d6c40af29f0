#include "tscope/analyzer/op_breakdown.h"

#include <algorithm>
#include <cmath>

#include "durations_by_name.h"
#include "order_statistics.h"

namespace tscope::analyzer {
namespace {

std::vector<NameStats> top_by_total(const AnalysisContext& context, trace::Category category,
                                    std::size_t count) {
  const trace::Trace& trace = context.trace();
  DurationsByName by_name = durations_by_name(context, category);
  std::vector<std::vector<TimeNs>>& durations = by_name.durations;
  std::vector<NameStats> stats;
  std::vector<std::uint32_t> order;  // slots, in the order of `stats`
  for (std::uint32_t slot = 0; slot < durations.size(); ++slot) {
    const std::vector<trace::TimeNs>& lengths = durations[slot];
    NameStats entry;
    entry.name = trace.string(by_name.names[slot]);
    entry.count = lengths.size();
    for (const trace::TimeNs length : lengths)
      entry.total_ns += static_cast<double>(length);
    entry.mean_ns = entry.total_ns / static_cast<double>(entry.count);
    stats.push_back(std::move(entry));
    order.push_back(slot);
  }
  const auto by_total = [&](std::uint32_t a, std::uint32_t b) {
    return stats[a].total_ns != stats[b].total_ns ? stats[a].total_ns > stats[b].total_ns
                                                  : stats[a].name < stats[b].name;
  };
  const std::size_t kept = std::min(count, stats.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(),
                    by_total);
  std::vector<NameStats> top;
  for (std::size_t rank = 0; rank < kept; ++rank) {
    NameStats& entry = stats[order[rank]];
    std::vector<trace::TimeNs>& lengths = durations[order[rank]];
    entry.p50_ns = nearest_rank(lengths, 0.50);
    entry.p95_ns = nearest_rank(lengths, 0.95);
    top.push_back(std::move(entry));
  }
  return top;
}

}  // namespace

OpBreakdown compute_op_breakdown(const AnalysisContext& context) {
  const std::size_t count = context.options().top_count;
  return {top_by_total(context, trace::Category::kCpuOp, count),
          top_by_total(context, trace::Category::kKernel, count)};
}

}  // namespace tscope::analyzer
