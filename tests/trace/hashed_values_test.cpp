// HashedValues: a value is found again under its hash, values that share a hash stay apart, and
// nothing is lost as the table grows.

#include "tscope/trace/hashed_values.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tscope::trace {
namespace {

TEST(HashedValuesTest, FindsEachValueAgainAmongManyThatShareAHash) {
  HashedValues<std::uint32_t> values;
  std::vector<std::uint32_t> made;
  // Seven hashes for 1000 values: long probe runs, and the table grows many times.
  const auto store = [&](std::uint32_t value) {
    return values.find_or_add(
        value % 7, [&](std::uint32_t stored) { return stored == value; },
        [&] {
          made.push_back(value);
          return value;
        });
  };
  for (std::uint32_t value = 0; value < 1000; ++value)
    EXPECT_EQ(store(value), value);
  EXPECT_EQ(made.size(), 1000u);
  for (std::uint32_t value = 0; value < 1000; ++value)
    EXPECT_EQ(store(value), value);
  EXPECT_EQ(made.size(), 1000u);
}

TEST(HashedValuesTest, ValuesUnderDifferentHashesAreNotCompared) {
  HashedValues<int> values;
  int compared = 0;
  const auto any = [&](int) {
    ++compared;
    return true;
  };
  values.find_or_add(1, any, [] { return 10; });
  EXPECT_EQ(values.find_or_add(2, any, [] { return 20; }), 20);
  EXPECT_EQ(compared, 0);
}

}  // namespace
}  // namespace tscope::trace
