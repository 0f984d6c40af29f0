// The policy file: alpha, per-pattern thresholds (glob or regex, first match wins), "none",
// normalize rules, and errors that name the file and line.

#include <gtest/gtest.h>

#include <string>

#include "temp_file.h"
#include "tscope/regress/error.h"
#include "tscope/regress/policy.h"

namespace tscope::regress {
namespace {

using testing::TempFile;

// What reading `config` throws as RegressInputError; a failure where it reads without one.
std::string policy_error(const TempFile& config) {
  try {
    read_policy_config(config.path());
  } catch (const RegressInputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected RegressInputError from " << config.path();
  return {};
}

TEST(PolicyConfigTest, ReadsAlphaThresholdsAndNormalizeRules) {
  const TempFile config("policy.conf",
                        "# gate for the engine suite\n"
                        "alpha 0.01\n"
                        "threshold BM_Matmul/* 10%   # BLAS-bound, noisier\n"
                        "threshold re:BM_Alloc(Small|Large) none\n"
                        "\n"
                        "normalize BM_Engine(.*) BM_Blas$1\n");
  const ComparePolicy policy = read_policy_config(config.path());
  EXPECT_DOUBLE_EQ(policy.alpha, 0.01);
  ASSERT_EQ(policy.thresholds.size(), 2u);
  ASSERT_EQ(policy.normalizers.size(), 1u);
  EXPECT_EQ(policy.normalizers[0].reference_for("BM_Engine/256"), "BM_Blas/256");
}

TEST(PolicyConfigTest, FirstMatchingRuleWinsAndTheDefaultCoversTheRest) {
  const TempFile config("policy.conf", "threshold BM_Matmul/256 2%\nthreshold BM_Matmul/* 10%\n");
  const ComparePolicy policy = read_policy_config(config.path());
  EXPECT_DOUBLE_EQ(*policy.threshold_for("BM_Matmul/256"), 0.02);
  EXPECT_DOUBLE_EQ(*policy.threshold_for("BM_Matmul/64"), 0.10);
  EXPECT_DOUBLE_EQ(*policy.threshold_for("BM_Add/64"), 0.05);
}

TEST(PolicyConfigTest, GlobMustMatchTheWholeName) {
  const NamePattern pattern("BM_Add*");
  EXPECT_TRUE(pattern.matches("BM_Add/64"));
  EXPECT_FALSE(pattern.matches("XBM_Add/64"));
  EXPECT_TRUE(NamePattern("BM_?dd/64").matches("BM_Add/64"));
  EXPECT_FALSE(NamePattern("BM_Add/6.").matches("BM_Add/64"));  // '.' is literal in a glob
}

TEST(PolicyConfigTest, NoneThresholdMeansUngated) {
  const TempFile config("policy.conf", "threshold BM_Raw* none\n");
  EXPECT_FALSE(read_policy_config(config.path()).threshold_for("BM_RawLoop").has_value());
}

TEST(PolicyConfigTest, UnknownDirectiveNamesFileAndLine) {
  const TempFile config("policy.conf", "alpha 0.05\nthreshhold BM_* 5%\n");
  const std::string message = policy_error(config);
  EXPECT_NE(message.find(config.path().string() + ":2:"), std::string::npos) << message;
}

TEST(PolicyConfigTest, ThresholdWithoutPercentSignIsRejected) {
  const TempFile config("policy.conf", "threshold BM_* 5\n");
  EXPECT_THROW(read_policy_config(config.path()), RegressInputError);
}

TEST(PolicyConfigTest, BadRegexNamesTheLine) {
  const TempFile config("policy.conf", "threshold re:BM_(Add 5%\n");
  const std::string message = policy_error(config);
  EXPECT_NE(message.find(":1: bad name pattern"), std::string::npos) << message;
}

// A repeat count or back-reference too long for libstdc++'s regex compiler's int (found by
// policy_fuzzer under UBSan) is refused with the line, not handed to it.
TEST(PolicyConfigTest, RegexWithANumberOfTenDigitsIsRejected) {
  const TempFile config("policy.conf", "threshold re:BM_a{1234567890} 5%\n");
  const std::string message = policy_error(config);
  EXPECT_NE(message.find(":1: bad name pattern"), std::string::npos) << message;
  EXPECT_NE(message.find("more than 9 digits"), std::string::npos) << message;
  EXPECT_TRUE(NamePattern("re:BM_\\w{1,3}/0123456789").matches("BM_Add/0123456789"));
}

// The same in a normalize rule's benchmark pattern (found by policy_fuzzer under UBSan: a
// back-reference of 46 digits), and a pattern longer than the regex compiler can take safely.
TEST(PolicyConfigTest, NormalizePatternWithANumberOfTenDigitsOrTooLongIsRejected) {
  const TempFile long_number("number.conf", "normalize (BM_a)\\1234567890 BM_b\n");
  const std::string message = policy_error(long_number);
  EXPECT_NE(message.find(":1: bad benchmark pattern"), std::string::npos) << message;
  EXPECT_NE(message.find("more than 9 digits"), std::string::npos) << message;
  const TempFile too_long("long.conf", "normalize " + std::string(300, 'a') + " BM_b\n");
  EXPECT_NE(policy_error(too_long).find("longer than the limit of 256"), std::string::npos);
}

// A control escape takes the backslash after it as its letter, so the digits after the next
// backslash are a back-reference (found by policy_fuzzer under UBSan: 114 digits after "\\c\\").
TEST(PolicyConfigTest, BackReferenceAfterAControlEscapeWithTenDigitsIsRejected) {
  const TempFile config("policy.conf", "threshold re:(a)\\c\\\\1234567890 5%\n");
  const std::string message = policy_error(config);
  EXPECT_NE(message.find(":1: bad name pattern"), std::string::npos) << message;
  EXPECT_NE(message.find("more than 9 digits"), std::string::npos) << message;
}

TEST(PolicyConfigTest, AlphaOutsideZeroToOneIsRejected) {
  const TempFile config("policy.conf", "alpha 5\n");
  EXPECT_THROW(read_policy_config(config.path()), RegressInputError);
}

}  // namespace
}  // namespace tscope::regress
