// sort_runs against std::stable_sort: the same order, ties included, whether the input comes as
// one run, a few or many.

#include "sort_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

namespace tscope::trace {
namespace {

// Keys with many ties, tagged with their input position so that stability shows.
struct Item {
  int key;
  int position;
  bool operator==(const Item&) const = default;
};
bool by_key(const Item& a, const Item& b) {
  return a.key < b.key;
}

std::vector<Item> runs_of(int runs, int items_per_run, std::mt19937& random) {
  std::vector<Item> items;
  std::uniform_int_distribution<int> key(0, 50);
  for (int run = 0; run < runs; ++run) {
    std::vector<int> keys(static_cast<std::size_t>(items_per_run));
    for (int& value : keys)
      value = key(random);
    std::sort(keys.begin(), keys.end());
    for (const int value : keys)
      items.push_back({value, static_cast<int>(items.size())});
  }
  return items;
}

TEST(SortRunsTest, GivesStableSortsOrderForAnyNumberOfRuns) {
  std::mt19937 random(7);
  for (const int runs : {0, 1, 2, 3, 5, 64, 65, 300}) {
    std::vector<Item> items = runs_of(runs, 40, random);
    std::vector<Item> expected = items;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    sort_runs(items.begin(), items.end(), by_key);
    EXPECT_EQ(items, expected) << runs << " runs";
  }
}

TEST(SortRunsTest, GivesStableSortsOrderForUnorderedInput) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> key(0, 1000);
  for (const int size : {31, 32, 33, 1000, 4097}) {
    std::vector<Item> items;
    items.reserve(static_cast<std::size_t>(size));
    for (int position = 0; position < size; ++position)
      items.push_back({key(random), position});
    std::vector<Item> expected = items;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    sort_runs(items.begin(), items.end(), by_key);
    EXPECT_EQ(items, expected) << size << " items";
  }
}

TEST(SortRunsTest, SortsASubrange) {
  std::vector<int> values{9, 3, 4, 1, 2, 0};
  sort_runs(values.begin() + 1, values.end() - 1, std::less<>());
  EXPECT_EQ(values, (std::vector<int>{9, 1, 2, 3, 4, 0}));
}

}  // namespace
}  // namespace tscope::trace
