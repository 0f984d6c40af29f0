#pragma once
// Sorts a range that mostly arrives as a few sorted runs (a track's spans in time order, ids given
// out in time order, Kineto's events written one thread or stream after another): the runs are
// merged, in about one pass for a few of them, and only a range of many runs is sorted afresh.
// Stable, like std::stable_sort.

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace tscope::trace {

template <typename Iterator, typename Less>
void sort_runs(Iterator first, Iterator last, Less less) {
  // Beyond this many runs a sort costs less than merging them.
  constexpr std::size_t kMaxRuns = 64;
  const auto size = static_cast<std::size_t>(std::distance(first, last));
  std::vector<std::size_t> bounds{0};
  for (std::size_t index = 1; index < size; ++index) {
    if (!less(first[index], first[index - 1])) continue;
    if (bounds.size() == kMaxRuns) {
      std::stable_sort(first, last, less);
      return;
    }
    bounds.push_back(index);
  }
  bounds.push_back(size);
  // Neighbouring runs merged pass after pass; an odd run out is carried to the next pass.
  while (bounds.size() > 2) {
    std::vector<std::size_t> merged{0};
    std::size_t run = 0;
    for (; run + 2 < bounds.size(); run += 2) {
      const auto at = [&](std::size_t bound) {
        return first + static_cast<std::ptrdiff_t>(bounds[bound]);
      };
      std::inplace_merge(at(run), at(run + 1), at(run + 2), less);
      merged.push_back(bounds[run + 2]);
    }
    if (run + 1 < bounds.size()) merged.push_back(bounds.back());
    bounds = std::move(merged);
  }
}

}  // namespace tscope::trace
