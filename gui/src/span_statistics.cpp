#include "tscope/gui/span_statistics.h"

#include <algorithm>
#include <unordered_map>

namespace tscope::gui {

namespace {

bool counted(trace::Category category) {
  return category == trace::Category::kCpuOp || category == trace::Category::kKernel ||
         category == trace::Category::kMemcpy || category == trace::Category::kMemset;
}

}  // namespace

std::vector<SpanStatistic> span_statistics(const trace::Trace& trace, TimeRange range) {
  std::unordered_map<std::uint64_t, SpanStatistic> by_name;
  for (const trace::Track& track : trace.tracks()) {
    const trace::SpanColumns& spans = track.spans();
    const std::size_t end = track.first_span_starting_at(range.end);
    for (std::size_t span = track.first_span_starting_at(range.begin); span < end; ++span) {
      const trace::Category category = spans.category[span];
      if (!counted(category)) continue;
      const std::uint64_t key =
          static_cast<std::uint64_t>(spans.name[span]) << 8 | static_cast<std::uint8_t>(category);
      SpanStatistic& entry = by_name[key];
      entry.name = spans.name[span];
      entry.category = category;
      const TimeNs length = spans.end(span) - spans.start[span];
      ++entry.count;
      entry.total += length;
      entry.longest = std::max(entry.longest, length);
    }
  }
  std::vector<SpanStatistic> rows;
  rows.reserve(by_name.size());
  for (const auto& [key, entry] : by_name)
    rows.push_back(entry);
  std::sort(rows.begin(), rows.end(), [](const SpanStatistic& a, const SpanStatistic& b) {
    return a.total != b.total ? a.total > b.total : a.name < b.name;
  });
  return rows;
}

}  // namespace tscope::gui
