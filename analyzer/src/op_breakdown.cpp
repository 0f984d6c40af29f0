#include "tscope/analyzer/op_breakdown.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "order_statistics.h"

namespace tscope::analyzer {
namespace {

std::vector<NameStats> top_by_total(const AnalysisContext& context, trace::Category category,
                                    std::size_t count) {
  const trace::Trace& trace = context.trace();
  std::unordered_map<trace::StringId, std::vector<trace::TimeNs>> durations;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::SpanColumns& spans = trace.track(track_index).spans();
    const bool gpu = trace.track(track_index).info().kind == trace::TrackKind::kGpuStream;
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != category) continue;
      const std::size_t step =
          gpu ? context.step_of_gpu_activity({trace::EventKind::kSpan, track_index, i})
              : context.steps().step_at(spans.start[i]);
      if (step == context.steps().steps.size()) continue;
      durations[spans.name[i]].push_back(spans.end[i] - spans.start[i]);
    }
  }
  std::vector<NameStats> stats;
  for (auto& [name, lengths] : durations) {
    NameStats entry;
    entry.name = trace.string(name);
    entry.count = lengths.size();
    for (const trace::TimeNs length : lengths)
      entry.total_ns += static_cast<double>(length);
    entry.mean_ns = entry.total_ns / static_cast<double>(entry.count);
    stats.push_back(std::move(entry));
  }
  const auto by_total = [](const NameStats& a, const NameStats& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  };
  const std::size_t kept = std::min(count, stats.size());
  std::partial_sort(stats.begin(), stats.begin() + static_cast<std::ptrdiff_t>(kept), stats.end(),
                    by_total);
  stats.resize(kept);
  for (NameStats& entry : stats) {
    std::vector<trace::TimeNs>& lengths = durations[*trace.strings().find(entry.name)];
    std::sort(lengths.begin(), lengths.end());
    entry.p50_ns = nearest_rank(lengths, 0.50);
    entry.p95_ns = nearest_rank(lengths, 0.95);
  }
  return stats;
}

}  // namespace

OpBreakdown compute_op_breakdown(const AnalysisContext& context) {
  const std::size_t count = context.options().top_count;
  return {top_by_total(context, trace::Category::kCpuOp, count),
          top_by_total(context, trace::Category::kKernel, count)};
}

}  // namespace tscope::analyzer
