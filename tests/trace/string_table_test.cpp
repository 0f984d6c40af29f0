#include "tscope/trace/string_table.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tscope::trace {
namespace {

TEST(StringTable, EmptyStringIsIdZero) {
  StringTable table;
  EXPECT_EQ(table.intern(""), kEmptyString);
  EXPECT_EQ(table.view(kEmptyString), "");
}

TEST(StringTable, InterningTheSameTextReturnsTheSameId) {
  StringTable table;
  const StringId first = table.intern("matmul");
  table.intern("relu");
  EXPECT_EQ(table.intern("matmul"), first);
  EXPECT_EQ(table.size(), 3u);
}

TEST(StringTable, IdsAreDenseInInsertionOrder) {
  StringTable table;
  EXPECT_EQ(table.intern("a"), 1u);
  EXPECT_EQ(table.intern("b"), 2u);
  EXPECT_EQ(table.intern("c"), 3u);
}

TEST(StringTable, LooksUpBothWays) {
  StringTable table;
  const StringId id = table.intern("cudaLaunchKernel");
  EXPECT_EQ(table.view(id), "cudaLaunchKernel");
  EXPECT_EQ(table.find("cudaLaunchKernel"), id);
  EXPECT_EQ(table.find("never added"), std::nullopt);
}

TEST(StringTable, UnknownIdThrows) {
  StringTable table;
  EXPECT_THROW(table.view(5), std::out_of_range);
}

TEST(StringTable, CopyLooksUpIndependentlyOfTheOriginal) {
  StringTable copy;
  {
    StringTable original;
    original.intern("kept");
    copy = original;
  }
  EXPECT_EQ(copy.find("kept"), 1u);
  EXPECT_EQ(copy.intern("kept"), 1u);
  EXPECT_EQ(copy.intern("new"), 2u);
}

TEST(StringTable, ManyStringsKeepTheirIds) {
  StringTable table;
  for (int i = 0; i < 10000; ++i)
    table.intern("name " + std::to_string(i));
  EXPECT_EQ(table.find("name 0"), 1u);
  EXPECT_EQ(table.view(10000), "name 9999");
}

}  // namespace
}  // namespace tscope::trace
