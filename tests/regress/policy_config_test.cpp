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

// Inputs the policy fuzzer found when std::regex compiled the patterns (numbers of ten digits and
// more overflowed its repeat counts and back-references under UBSan), now answered by RE2: a repeat
// count above its limit of 1000 or a back-reference is refused with the line and RE2's reason; a
// number too long for a repeat count is literal text, and a backslash before three digits an octal
// character code.
TEST(PolicyConfigTest, RegexRepeatCountsAndBackReferencesOutOfRangeAreRejected) {
  const TempFile count("count.conf", "threshold re:BM_a{1001} 5%\n");
  std::string message = policy_error(count);
  EXPECT_NE(message.find(":1: bad name pattern"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid repetition size"), std::string::npos) << message;
  EXPECT_TRUE(NamePattern("re:BM_a{1234567890}").matches("BM_a{1234567890}"));
  EXPECT_TRUE(NamePattern("re:BM_\\w{1,3}/0123456789").matches("BM_Add/0123456789"));

  EXPECT_TRUE(NamePattern("re:(BM_a)\\1234567890").matches("BM_aS4567890"));
  const TempFile reference("reference.conf", "normalize (BM_a)\\1 BM_b\n");
  message = policy_error(reference);
  EXPECT_NE(message.find(":1: bad benchmark pattern"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid escape sequence"), std::string::npos) << message;

  const TempFile control("control.conf", "threshold re:(a)\\c\\\\1234567890 5%\n");
  message = policy_error(control);
  EXPECT_NE(message.find(":1: bad name pattern"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid escape sequence: \\c"), std::string::npos) << message;
}

// A normalize rule whose reference names a group its pattern lacks is refused when read, not
// turned into an empty name when a benchmark matches.
TEST(PolicyConfigTest, NormalizeReferenceNamingAMissingGroupIsRejected) {
  const TempFile config("policy.conf", "normalize BM_Engine(.*) BM_Blas$2\n");
  const std::string message = policy_error(config);
  EXPECT_NE(message.find(":1: bad benchmark pattern"), std::string::npos) << message;
  EXPECT_NE(message.find("$2 names a group"), std::string::npos) << message;
}

// A regular expression that backtracking engines take exponential time on matches in linear time.
TEST(PolicyConfigTest, NestedQuantifiersMatchLongNamesInLinearTime) {
  const NamePattern pattern("re:(a+)+b");
  EXPECT_FALSE(pattern.matches(std::string(100'000, 'a')));
  EXPECT_TRUE(pattern.matches(std::string(100'000, 'a') + "b"));
}

TEST(PolicyConfigTest, AlphaOutsideZeroToOneIsRejected) {
  const TempFile config("policy.conf", "alpha 5\n");
  EXPECT_THROW(read_policy_config(config.path()), RegressInputError);
}

}  // namespace
}  // namespace tscope::regress
