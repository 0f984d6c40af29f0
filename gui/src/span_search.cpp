#include "tscope/gui/span_search.h"

#include <algorithm>
#include <numeric>

namespace tscope::gui {

SpanSearch::SpanSearch(const trace::Trace& trace, std::string_view query) {
  if (query.empty()) return;
  std::vector<bool> matching(trace.strings().size(), false);
  bool any = false;
  for (trace::StringId id = 0; id < trace.strings().size(); ++id) {
    if (trace.string(id).find(query) != std::string_view::npos) matching[id] = any = true;
  }
  if (!any) return;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const trace::SpanColumns& spans = trace.track(track).spans();
    for (std::uint32_t span = 0; span < spans.size(); ++span) {
      if (!matching[spans.name[span]]) continue;
      matches_.push_back({trace::EventKind::kSpan, track, span});
      starts_.push_back(spans.start[span]);
    }
  }
  std::vector<std::size_t> order(matches_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return starts_[a] < starts_[b]; });
  std::vector<trace::EventRef> sorted_matches;
  std::vector<trace::TimeNs> sorted_starts;
  sorted_matches.reserve(order.size());
  sorted_starts.reserve(order.size());
  for (const std::size_t index : order) {
    sorted_matches.push_back(matches_[index]);
    sorted_starts.push_back(starts_[index]);
  }
  matches_ = std::move(sorted_matches);
  starts_ = std::move(sorted_starts);
}

std::size_t SpanSearch::first_at_or_after(trace::TimeNs time) const {
  const auto found = std::lower_bound(starts_.begin(), starts_.end(), time);
  return found == starts_.end() ? 0 : static_cast<std::size_t>(found - starts_.begin());
}

}  // namespace tscope::gui
