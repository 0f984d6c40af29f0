// Ratios to an in-run reference: pairing by regex groups, medians, and a missing reference.

#include "tscope/regress/reference_ratio.h"

#include <gtest/gtest.h>

#include "results_builder.h"
#include "tscope/regress/error.h"

namespace tscope::regress {
namespace {

using testing::results_of;

TEST(ReferenceRatioTest, PairsEachMatchAndDividesMedians) {
  const BenchmarkResults results = results_of("run.json", {{"BM_EngineMatmul/64", {11, 12, 13}},
                                                           {"BM_BlasSgemm/64", {10, 10, 10}},
                                                           {"BM_EngineMatmul/256", {200, 210, 220}},
                                                           {"BM_BlasSgemm/256", {200, 200, 200}}});
  const std::vector<ReferenceRatio> ratios =
      reference_ratios(results, metric_named("real_time"),
                       ReferencePairing("BM_EngineMatmul/(.*)", "BM_BlasSgemm/$1"));
  ASSERT_EQ(ratios.size(), 2u);
  EXPECT_EQ(ratios[0].reference, "BM_BlasSgemm/64");
  EXPECT_DOUBLE_EQ(ratios[0].ratio, 1.2);
  EXPECT_EQ(ratios[1].name, "BM_EngineMatmul/256");
  EXPECT_DOUBLE_EQ(ratios[1].ratio, 1.05);
}

TEST(ReferenceRatioTest, PatternMustMatchTheWholeName) {
  const ReferencePairing pairing("BM_Engine(.*)", "BM_Blas$1");
  EXPECT_FALSE(pairing.reference_for("XBM_Engine/64").has_value());
}

TEST(ReferenceRatioTest, MissingReferenceNamesFileAndBenchmark) {
  const BenchmarkResults results = results_of("run.json", {{"BM_EngineAdd/64", {5, 5, 5}}});
  try {
    reference_ratios(results, metric_named("real_time"),
                     ReferencePairing("BM_Engine(.*)", "BM_Loop$1"));
    FAIL() << "expected RegressInputError";
  } catch (const RegressInputError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("run.json: benchmark \"BM_EngineAdd/64\" is measured against "
                        "\"BM_LoopAdd/64\""),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tscope::regress
