// CUDA and driver version numbers as CUDA encodes them and as NVIDIA prints them.

#include "tscope/doctor/versions.h"

#include <gtest/gtest.h>

namespace tscope::doctor {
namespace {

TEST(CudaVersionTest, DecodesTheCudaVersionEncoding) {
  EXPECT_EQ(CudaVersion::from_encoded(13000), (CudaVersion{13, 0}));
  EXPECT_EQ(CudaVersion::from_encoded(12040), (CudaVersion{12, 4}));
  EXPECT_EQ(CudaVersion::from_encoded(11080).to_string(), "11.8");
}

TEST(CudaVersionTest, OrdersByMajorThenMinor) {
  EXPECT_LT((CudaVersion{12, 9}), (CudaVersion{13, 0}));
  EXPECT_LT((CudaVersion{12, 4}), (CudaVersion{12, 10}));
}

TEST(DriverVersionTest, ParsesThreeAndTwoPartReleases) {
  EXPECT_EQ(DriverVersion::parse("580.65.06"), (DriverVersion{580, 65, 6}));
  EXPECT_EQ(DriverVersion::parse("570.26"), (DriverVersion{570, 26, 0}));
}

TEST(DriverVersionTest, RejectsTextThatIsNotAReleaseNumber) {
  EXPECT_FALSE(DriverVersion::parse(""));
  EXPECT_FALSE(DriverVersion::parse("580"));
  EXPECT_FALSE(DriverVersion::parse("580."));
  EXPECT_FALSE(DriverVersion::parse("580.65.06.1"));
  EXPECT_FALSE(DriverVersion::parse("580.65a"));
  EXPECT_FALSE(DriverVersion::parse("-1.2"));
}

TEST(DriverVersionTest, PrintsAsNvidiaDoes) {
  EXPECT_EQ((DriverVersion{580, 65, 6}).to_string(), "580.65.06");
  EXPECT_EQ((DriverVersion{535, 104, 5}).to_string(), "535.104.05");
  EXPECT_EQ((DriverVersion{570, 26, 0}).to_string(), "570.26");
  EXPECT_EQ((DriverVersion{580, 0, 0}).to_string(), "580");
}

TEST(DriverVersionTest, ComparesComponentByComponent) {
  EXPECT_LT((DriverVersion{450, 51, 6}), (DriverVersion{450, 80, 2}));
  EXPECT_LT((DriverVersion{575, 57, 8}), (DriverVersion{580, 0, 0}));
}

}  // namespace
}  // namespace tscope::doctor
