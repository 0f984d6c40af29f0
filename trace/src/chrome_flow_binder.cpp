#include "chrome_flow_binder.h"

#include <algorithm>
#include <limits>

#include "sort_runs.h"

namespace tscope::trace {

void ChromeFlowBinder::add_span(TimeNs start, TimeNs end, EventRef ref) {
  spans_.push_back({start, end, ref.pack()});
}

void ChromeFlowBinder::prepare() {
  // By start, the longer first, so among spans that share a start the later index is the inner.
  sort_runs(spans_.begin(), spans_.end(), [](const Entry& a, const Entry& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  leaves_ = 1;
  while (leaves_ < spans_.size())
    leaves_ *= 2;
  max_end_.reserve(2 * leaves_);
  std::fill_n(max_end_.data(), 2 * leaves_, std::numeric_limits<TimeNs>::min());
  for (std::size_t index = 0; index < spans_.size(); ++index) {
    max_end_[leaves_ + index] = spans_[index].end;
  }
  for (std::size_t node = leaves_ - 1; node > 0; --node) {
    max_end_[node] = std::max(max_end_[2 * node], max_end_[2 * node + 1]);
  }
}

std::optional<EventRef> ChromeFlowBinder::enclosing(TimeNs time) const {
  const auto after = std::upper_bound(spans_.begin(), spans_.end(), time,
                                      [](TimeNs t, const Entry& entry) { return t < entry.start; });
  if (after == spans_.begin()) return std::nullopt;
  const std::size_t last = static_cast<std::size_t>(after - spans_.begin()) - 1;
  // Rightmost leaf in [0, last] whose end reaches `time`: climb from the leaf, then descend.
  std::size_t node = leaves_ + last;
  if (max_end_[node] >= time) return EventRef::unpack(spans_[last].packed_ref);
  while (node > 1) {
    if (node % 2 == 1 && max_end_[node - 1] >= time) {
      node -= 1;
      while (node < leaves_)
        node = max_end_[2 * node + 1] >= time ? 2 * node + 1 : 2 * node;
      return EventRef::unpack(spans_[node - leaves_].packed_ref);
    }
    node /= 2;
  }
  return std::nullopt;
}

std::optional<EventRef> ChromeFlowBinder::next(TimeNs time) const {
  const auto found = std::lower_bound(spans_.begin(), spans_.end(), time,
                                      [](const Entry& entry, TimeNs t) { return entry.start < t; });
  if (found == spans_.end()) return std::nullopt;
  return EventRef::unpack(found->packed_ref);
}

}  // namespace tscope::trace
