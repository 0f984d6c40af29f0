// The driver/runtime verdict against NVIDIA's published tables: "CUDA Toolkit and
// Corresponding Driver Versions" (CUDA release notes) and the minor version compatibility
// minimums of the CUDA Compatibility guide (13.x >= 580, 12.x >= 525.60.13, 11.x >= 450.80.02).

#include "tscope/doctor/driver_compatibility.h"

#include <gtest/gtest.h>

#include <vector>

namespace tscope::doctor {
namespace {

struct PublishedRow {
  CudaVersion toolkit;
  const char* linux_driver;
};

// Transcribed independently of the code's table, GA rows of the Linux x86_64 column.
const std::vector<PublishedRow> kPublishedRows = {
    {{13, 2}, "595.45.04"}, {{13, 1}, "590.44.01"}, {{13, 0}, "580.65.06"}, {{12, 9}, "575.51.03"},
    {{12, 8}, "570.26"},    {{12, 6}, "560.28.03"}, {{12, 5}, "555.42.02"}, {{12, 4}, "550.54.14"},
    {{12, 3}, "545.23.06"}, {{12, 2}, "535.54.03"}, {{12, 1}, "530.30.02"}, {{12, 0}, "525.60.13"},
    {{11, 8}, "520.61.05"}, {{11, 7}, "515.43.04"}, {{11, 6}, "510.39.01"}, {{11, 5}, "495.29.05"},
    {{11, 4}, "470.42.01"}, {{11, 3}, "465.19.01"}, {{11, 2}, "460.27.03"}, {{11, 1}, "455.23"},
    {{11, 0}, "450.51.05"}, {{10, 2}, "440.33"},    {{10, 1}, "418.39"},    {{10, 0}, "410.48"},
};

DriverVersion release(const char* text) {
  return DriverVersion::parse(text).value();
}

TEST(DriverCompatibilityTest, TableMatchesEveryPublishedRow) {
  ASSERT_EQ(toolkit_driver_table().size(), kPublishedRows.size());
  for (const PublishedRow& row : kPublishedRows) {
    EXPECT_EQ(toolkit_minimum_driver(row.toolkit), release(row.linux_driver))
        << row.toolkit.to_string();
  }
}

TEST(DriverCompatibilityTest, MinorVersionMinimumsMatchTheCompatibilityGuide) {
  EXPECT_EQ(minor_version_compatibility_minimum(13), (DriverVersion{580, 0, 0}));
  EXPECT_EQ(minor_version_compatibility_minimum(12), release("525.60.13"));
  EXPECT_EQ(minor_version_compatibility_minimum(11), release("450.80.02"));
  EXPECT_FALSE(minor_version_compatibility_minimum(10));
}

TEST(DriverCompatibilityTest, EachToolkitsOwnDriverIsFullyCompatible) {
  for (const PublishedRow& row : kPublishedRows) {
    EXPECT_EQ(
        check_driver_compatibility(row.toolkit, row.toolkit, release(row.linux_driver)).verdict,
        Compatibility::full)
        << row.toolkit.to_string();
  }
}

TEST(DriverCompatibilityTest, NewerDriverRunsOlderToolkits) {
  EXPECT_EQ(check_driver_compatibility({12, 8}, {13, 0}, release("580.65.06")).verdict,
            Compatibility::full);
  EXPECT_EQ(check_driver_compatibility({11, 8}, {12, 4}, release("550.54.14")).verdict,
            Compatibility::full);
}

TEST(DriverCompatibilityTest, OlderMinorOfTheSameMajorRunsThroughMinorVersionCompatibility) {
  EXPECT_EQ(check_driver_compatibility({13, 2}, {13, 0}, release("580.65.06")).verdict,
            Compatibility::minor_version);
  EXPECT_EQ(check_driver_compatibility({12, 9}, {12, 0}, release("525.60.13")).verdict,
            Compatibility::minor_version);
  EXPECT_EQ(check_driver_compatibility({11, 8}, {11, 0}, release("450.80.02")).verdict,
            Compatibility::minor_version);
}

TEST(DriverCompatibilityTest, Cuda11DriverBelowTheMinorVersionMinimumIsIncompatible) {
  // 450.51.06 is the CUDA 11.0 Update 1 driver: it reports CUDA 11.0 but predates 450.80.02.
  const DriverCompatibility result =
      check_driver_compatibility({11, 1}, {11, 0}, release("450.51.06"));
  EXPECT_EQ(result.verdict, Compatibility::incompatible);
  EXPECT_EQ(result.minor_version_minimum, release("450.80.02"));
}

TEST(DriverCompatibilityTest, OlderMajorIsIncompatibleAndNamesBothMinimums) {
  const DriverCompatibility result =
      check_driver_compatibility({13, 0}, {12, 9}, release("575.57.08"));
  EXPECT_EQ(result.verdict, Compatibility::incompatible);
  EXPECT_EQ(result.full_minimum, release("580.65.06"));
  EXPECT_EQ(result.minor_version_minimum, (DriverVersion{580, 0, 0}));
}

TEST(DriverCompatibilityTest, UnknownDriverReleaseDecidesByReportedCudaVersion) {
  EXPECT_EQ(check_driver_compatibility({12, 8}, {12, 2}, std::nullopt).verdict,
            Compatibility::minor_version);
  EXPECT_EQ(check_driver_compatibility({13, 0}, {12, 9}, std::nullopt).verdict,
            Compatibility::incompatible);
}

TEST(DriverCompatibilityTest, Cuda10HasNoMinorVersionCompatibility) {
  const DriverCompatibility result =
      check_driver_compatibility({10, 2}, {10, 1}, release("418.39"));
  EXPECT_EQ(result.verdict, Compatibility::incompatible);
  EXPECT_EQ(result.full_minimum, release("440.33"));
  EXPECT_FALSE(result.minor_version_minimum);
}

TEST(DriverCompatibilityTest, ToolkitMissingFromTheTableHasNoFullMinimum) {
  const DriverCompatibility result =
      check_driver_compatibility({14, 0}, {13, 2}, release("595.45.04"));
  EXPECT_EQ(result.verdict, Compatibility::incompatible);
  EXPECT_FALSE(result.full_minimum);
}

}  // namespace
}  // namespace tscope::doctor
