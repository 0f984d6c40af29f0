#include "chrome_flows.h"

#include <algorithm>
#include <tuple>

#include "sort_runs.h"
#include "two_threads.h"

namespace tscope::trace::chrome_json {

std::uint32_t ChromeFlows::row_index(RowId row) {
  // Consecutive events mostly share a row.
  if (last_row_ && last_row_->first == row) return last_row_->second;
  const auto [found, inserted] =
      row_indices_.try_emplace(row, static_cast<std::uint32_t>(rows_.size()));
  if (inserted) rows_.emplace_back();
  last_row_.emplace(row, found->second);
  return found->second;
}

void ChromeFlows::add_end(RowId row, const FlowEnd& end) {
  ends_.push_back({end.id, end.correlation.value_or(0), end.time, row_index(row), end.kind,
                   end.is_start, end.binds_to_next, end.correlation.has_value()});
}

std::vector<ChromeFlows::BoundEnd> ChromeFlows::bind_ends() {
  // Each end bound to its span, in one flat vector sorted by kind and id: a trace has an id for
  // every kernel launch, too many for a map node and two vectors each.
  const auto in_id_order = [](const BoundEnd& a, const BoundEnd& b) {
    return std::tie(a.kind, a.id, a.sequence) < std::tie(b.kind, b.id, b.sequence);
  };
  std::vector<BoundEnd> bound;
  if (ends_.empty()) return bound;

  // This runs after the last window, with a second core idle: the rows' spans are sorted on two
  // threads (the largest rows first, each to the thread with fewer spans so far), then each half
  // of the ends is bound and sorted on its own, and the halves merged: one sort's order.
  std::vector<ChromeFlowBinder*> rows;
  rows.reserve(rows_.size());
  for (ChromeFlowBinder& spans : rows_)
    rows.push_back(&spans);
  std::sort(rows.begin(), rows.end(), [](const ChromeFlowBinder* a, const ChromeFlowBinder* b) {
    return a->size() > b->size();
  });
  std::vector<ChromeFlowBinder*> rows_of[2];
  std::size_t spans_of[2] = {0, 0};
  for (ChromeFlowBinder* spans : rows) {
    const int thread = spans_of[0] <= spans_of[1] ? 0 : 1;
    rows_of[thread].push_back(spans);
    spans_of[thread] += spans->size();
  }
  const auto prepare = [&](int thread) {
    for (ChromeFlowBinder* spans : rows_of[thread])
      spans->prepare();
  };
  run_both(
      spans_of[0] + spans_of[1], [&] { prepare(0); }, [&] { prepare(1); });

  bound.resize(ends_.size());
  const std::size_t half = ends_.size() / 2;
  std::size_t bound_in[2] = {0, 0};
  // Binds the ends from `first` to `last` into `bound` from `first` on, sorted.
  const auto bind = [&](std::size_t first, std::size_t last, std::size_t& count) {
    BoundEnd* const out = bound.data() + first;
    for (std::size_t index = first; index < last; ++index) {
      const PendingEnd& end = ends_[index];
      const ChromeFlowBinder& spans = rows_[end.row];
      const auto span = end.binds_to_next ? spans.next(end.time) : spans.enclosing(end.time);
      if (!span) continue;  // nothing on that row to bind to
      out[count++] = {end.id,   span->pack(), end.correlation,    static_cast<std::uint32_t>(index),
                      end.kind, end.is_start, end.has_correlation};
    }
    sort_runs(out, out + count, in_id_order);
  };
  run_both(
      ends_.size(), [&] { bind(0, half, bound_in[0]); },
      [&] { bind(half, ends_.size(), bound_in[1]); });
  std::move(bound.begin() + static_cast<std::ptrdiff_t>(half),
            bound.begin() + static_cast<std::ptrdiff_t>(half + bound_in[1]),
            bound.begin() + static_cast<std::ptrdiff_t>(bound_in[0]));
  bound.resize(bound_in[0] + bound_in[1]);
  std::inplace_merge(bound.begin(), bound.begin() + static_cast<std::ptrdiff_t>(bound_in[0]),
                     bound.end(), in_id_order);
  return bound;
}

void ChromeFlows::finish(TraceBuilder& builder) {
  const std::vector<BoundEnd> bound = bind_ends();
  // The spans and ends are no longer needed; the flows come next.
  rows_ = std::vector<ChromeFlowBinder>();
  row_indices_ = {};
  last_row_.reset();
  ends_ = {};
  for (std::size_t first = 0; first < bound.size();) {
    std::size_t last = first;
    std::optional<std::uint64_t> correlation;
    while (last < bound.size() && bound[last].kind == bound[first].kind &&
           bound[last].id == bound[first].id) {
      if (bound[last].has_correlation) correlation = bound[last].correlation;
      ++last;
    }
    // The n-th start of an id pairs with its n-th finish, in file order.
    std::size_t start = first;
    std::size_t finish = first;
    for (;;) {
      while (start < last && !bound[start].is_start)
        ++start;
      while (finish < last && bound[finish].is_start)
        ++finish;
      if (start == last || finish == last) break;
      builder.add_flow({bound[first].kind, correlation.value_or(bound[first].id),
                        EventRef::unpack(bound[start].packed_ref),
                        EventRef::unpack(bound[finish].packed_ref)});
      ++start;
      ++finish;
    }
    first = last;
  }
}

}  // namespace tscope::trace::chrome_json
