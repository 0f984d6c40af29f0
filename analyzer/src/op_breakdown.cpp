#include "tscope/analyzer/op_breakdown.h"

#include <algorithm>
#include <cmath>

#include "order_statistics.h"

namespace tscope::analyzer {
namespace {

// The step of span `i` of a track: a GPU activity's from the context (`cursor` walks the
// stream's activities alongside ascending `i`), anything else's by its start.
std::size_t step_of_span(const AnalysisContext& context, const GpuStream* stream,
                         std::size_t& cursor, std::uint32_t track_index, std::uint32_t i) {
  const trace::SpanColumns& spans = context.trace().track(track_index).spans();
  if (stream == nullptr) return context.steps().step_at(spans.start[i]);
  while (cursor < stream->activities.size() && stream->activities[cursor].index < i)
    ++cursor;
  if (cursor < stream->activities.size() && stream->activities[cursor].index == i)
    return stream->activities[cursor].step;
  return context.step_of_gpu_activity({trace::EventKind::kSpan, track_index, i});
}

std::vector<NameStats> top_by_total(const AnalysisContext& context, trace::Category category,
                                    std::size_t count) {
  const trace::Trace& trace = context.trace();
  // Durations per name: a name's slot in `durations` (kNoSlot until seen), so that each event
  // costs an index, not a hash.
  constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::vector<std::uint32_t> slot_of_name;
  std::vector<trace::StringId> names;
  std::vector<std::vector<trace::TimeNs>> durations;
  std::size_t next_stream = 0;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::SpanColumns& spans = trace.track(track_index).spans();
    const GpuStream* stream = nullptr;
    if (trace.track(track_index).info().kind == trace::TrackKind::kGpuStream)
      stream = &context.gpu_streams()[next_stream++];
    std::size_t cursor = 0;
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != category) continue;
      const std::size_t step = step_of_span(context, stream, cursor, track_index, i);
      if (step == context.steps().steps.size()) continue;
      const trace::StringId name = spans.name[i];
      if (slot_of_name.size() <= name) slot_of_name.resize(name + 1, kNoSlot);
      if (slot_of_name[name] == kNoSlot) {
        slot_of_name[name] = static_cast<std::uint32_t>(durations.size());
        names.push_back(name);
        durations.emplace_back();
      }
      durations[slot_of_name[name]].push_back(spans.end(i) - spans.start[i]);
    }
  }
  std::vector<NameStats> stats;
  std::vector<std::uint32_t> order;  // slots, in the order of `stats`
  for (std::uint32_t slot = 0; slot < durations.size(); ++slot) {
    const std::vector<trace::TimeNs>& lengths = durations[slot];
    NameStats entry;
    entry.name = trace.string(names[slot]);
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
