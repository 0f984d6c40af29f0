#pragma once
// Sorts a range that mostly arrives as a few sorted runs (a track's spans in time order, ids given
// out in time order, Kineto's events written one thread or stream after another): the runs are
// merged, in about one pass for a few of them, and a range of many runs is sorted afresh, bottom
// up. Stable, like std::stable_sort. Takes nothing from malloc: a merge sets its first run aside
// in memory mapped from the system (mapped_buffer.h), because these sorts run on the importer's
// helper threads too, whose malloc arena would keep a heap buffer resident beside the trace once
// the import is done.

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>

#include "mapped_buffer.h"

namespace tscope::trace {
namespace sort_runs_detail {

// Merges the sorted neighbours [first, middle) and [middle, last) stably, through `aside`.
template <typename Iterator, typename Less, typename Value>
void merge_neighbours(Iterator first, Iterator middle, Iterator last, Less& less,
                      MappedArray<Value>& aside) {
  aside.reserve(static_cast<std::size_t>(std::distance(first, middle)));
  Value* left = aside.data();
  Value* const left_end = std::copy(first, middle, left);
  Iterator right = middle;
  Iterator out = first;
  // `out` never passes `right`: it trails it by the left run's elements not yet written back.
  while (left != left_end && right != last) {
    *out++ = less(*right, *left) ? *right++ : *left++;
  }
  std::copy(left, left_end, out);
}

// Sorts blocks of a few elements by insertion, then merges neighbouring blocks pass after pass.
template <typename Iterator, typename Less, typename Value>
void sort_bottom_up(Iterator first, std::size_t size, Less& less, MappedArray<Value>& aside) {
  constexpr std::size_t kBlock = 32;
  for (std::size_t begin = 0; begin < size; begin += kBlock) {
    const std::size_t end = std::min(begin + kBlock, size);
    for (std::size_t index = begin + 1; index < end; ++index) {
      const Value value = first[index];
      std::size_t at = index;
      for (; at > begin && less(value, first[at - 1]); --at)
        first[at] = first[at - 1];
      first[at] = value;
    }
  }
  for (std::size_t width = kBlock; width < size; width *= 2) {
    for (std::size_t begin = 0; begin + width < size; begin += 2 * width) {
      merge_neighbours(first + begin, first + (begin + width),
                       first + std::min(begin + 2 * width, size), less, aside);
    }
  }
}

}  // namespace sort_runs_detail

template <typename Iterator, typename Less>
void sort_runs(Iterator first, Iterator last, Less less) {
  using Value = typename std::iterator_traits<Iterator>::value_type;
  // Beyond this many runs, sorting from scratch costs less than merging them.
  constexpr std::size_t kMaxRuns = 64;
  const auto size = static_cast<std::size_t>(std::distance(first, last));
  MappedArray<Value> aside;
  // Where each run starts, then the end of the last.
  std::array<std::size_t, kMaxRuns + 1> bounds{};
  std::size_t count = 1;
  for (std::size_t index = 1; index < size; ++index) {
    if (!less(first[index], first[index - 1])) continue;
    if (count == kMaxRuns) {
      sort_runs_detail::sort_bottom_up(first, size, less, aside);
      return;
    }
    bounds[count++] = index;
  }
  bounds[count++] = size;
  // Neighbouring runs merged pass after pass; an odd run out is carried to the next pass. Each
  // pass rewrites the bounds it has read.
  while (count > 2) {
    std::size_t kept = 1;
    std::size_t run = 0;
    for (; run + 2 < count; run += 2) {
      sort_runs_detail::merge_neighbours(first + bounds[run], first + bounds[run + 1],
                                         first + bounds[run + 2], less, aside);
      bounds[kept++] = bounds[run + 2];
    }
    if (run + 1 < count) bounds[kept++] = bounds[count - 1];
    count = kept;
  }
}

}  // namespace tscope::trace
