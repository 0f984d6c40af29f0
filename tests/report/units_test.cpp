// The unit formatters every report and view shares: three significant digits, whole nanoseconds.

#include "tscope/report/units.h"

#include <gtest/gtest.h>

namespace tscope {
namespace {

TEST(Units, UseThreeSignificantDigits) {
  EXPECT_EQ(format_duration(850), "850 ns");
  EXPECT_EQ(format_duration(12'345), "12.3 µs");
  EXPECT_EQ(format_duration(4'560'000), "4.56 ms");
  EXPECT_EQ(format_bytes(3 * 1024 * 1024), "3.00 MiB");
  EXPECT_EQ(format_percent(0.123), "12.3%");
}

TEST(Units, DurationsShowThreeSignificantDigits) {
  EXPECT_EQ(format_duration(1'234'567), "1.23 ms");
  EXPECT_EQ(format_duration(42), "42 ns");
}

}  // namespace
}  // namespace tscope
