// Fusion chains from our engine's dataflow and from adjacent kernels of imported traces.

#include "tscope/analyzer/fusion.h"

#include <gtest/gtest.h>

#include <functional>

#include "synthetic_trace.h"
#include "test_data.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

using trace::Category;
using tscope::testing::SyntheticTrace;

constexpr trace::TimeNs kMs = 1'000'000;
constexpr trace::TimeNs kUs = 1'000;
constexpr std::uint64_t kMiB = 1 << 20;
constexpr trace::TimeNs kStep = 10 * kMs;

// Four steps of 10 ms, each opened by 2 ms of a matmul of new tensors; `rest_of_step` adds the
// step's other ops, given its start, the matmul's product and the next free tensor id.
trace::Trace steps_opened_by_matmul(
    const std::function<void(SyntheticTrace&, trace::TimeNs, std::uint64_t, std::uint64_t&)>&
        rest_of_step) {
  SyntheticTrace trace;
  std::uint64_t tensor = 1;
  for (int step = 0; step < 4; ++step) {
    const trace::TimeNs start = step * kStep;
    trace.span(trace.main(), "step " + std::to_string(step), Category::kStep, start, start + kStep);
    const std::uint64_t input = tensor++;
    const std::uint64_t product = tensor++;
    trace.op("matmul", start, start + 2 * kMs, {input}, {product}, 4 * kMiB, 4 * kMiB,
             1'000'000'000);
    rest_of_step(trace, start, product, tensor);
  }
  return trace.finish();
}

// Per 10 ms step: a matmul, then bias add -> GELU -> dropout, each moving 8 MiB, 100 µs apart (add
// and dropout 1 ms, GELU `gelu_ms`); then the same work as one fused op.
trace::Trace bias_gelu_dropout_trace(bool connected, trace::TimeNs gelu_ms = 1) {
  return steps_opened_by_matmul([connected, gelu_ms](SyntheticTrace& trace, trace::TimeNs start,
                                                     std::uint64_t hidden, std::uint64_t& tensor) {
    const std::uint64_t biased = tensor++;
    const std::uint64_t activated = tensor++;
    const std::uint64_t dropped = tensor++;
    const trace::TimeNs gelu_end = start + (3 + gelu_ms) * kMs + 200 * kUs;
    trace.op("add", start + 2 * kMs + 100 * kUs, start + 3 * kMs + 100 * kUs, {hidden}, {biased},
             4 * kMiB, 4 * kMiB, kMiB);
    trace.op("gelu", start + 3 * kMs + 200 * kUs, gelu_end, {connected ? biased : tensor++},
             {activated}, 4 * kMiB, 4 * kMiB, 8 * kMiB);
    trace.op("dropout", gelu_end + 100 * kUs, gelu_end + kMs + 100 * kUs, {activated}, {dropped},
             4 * kMiB, 4 * kMiB, kMiB);
    trace.op("fused_bias_gelu_dropout", start + 8 * kMs, start + 9 * kMs, {hidden}, {tensor++},
             4 * kMiB, 4 * kMiB, 10 * kMiB);
  });
}

TEST(FusionTest, DataflowChainIsFoundWithItsOccurrencesAndSaving) {
  const trace::Trace trace = bias_gelu_dropout_trace(true);
  const std::vector<Finding> findings = find_fusion_opportunities(AnalysisContext(trace, {}));
  ASSERT_EQ(findings.size(), 1u);
  const Finding& chain = findings[0];
  EXPECT_NE(chain.title.find("add -> gelu -> dropout"), std::string::npos);
  EXPECT_EQ(chain.metric("chain_length"), 3);
  EXPECT_EQ(chain.metric("occurrences_per_step"), 1);
  // 3 ms moving 24 MiB; fused it moves 8 MiB (read once, write once) at the same bandwidth:
  // 1 ms. Saving 3 - 1 ms plus the two 100 µs launch gaps.
  EXPECT_NEAR(chain.metric("saving_ns_per_step"), 2.2 * kMs, 1);
  EXPECT_EQ(chain.severity, Severity::kHigh);
  EXPECT_EQ(chain.evidence.size(), 3u);
}

TEST(FusionTest, AMembersArithmeticStaysInTheFusedTime) {
  // GELU takes 3 ms to move the 8 MiB the others move in 1 ms: 2 ms of it is arithmetic, which the
  // fused op still does. Fused: 8 MiB at the others' bandwidth, 1 ms, plus 2 ms. Saving: the 5 ms
  // chain less 3 ms, plus the two 100 µs gaps, as much as with a 1 ms GELU.
  const trace::Trace trace = bias_gelu_dropout_trace(true, 3);
  const std::vector<Finding> findings = find_fusion_opportunities(AnalysisContext(trace, {}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NEAR(findings[0].metric("arithmetic_ns_per_step"), 2 * kMs, 1);
  EXPECT_NEAR(findings[0].metric("saving_ns_per_step"), 2.2 * kMs, 1);
  EXPECT_NE(findings[0].explanation.find("2.00 ms is arithmetic"), std::string::npos)
      << findings[0].explanation;
}

TEST(FusionTest, OpsThatDoNotConsumeEachOthersOutputAreNoChain) {
  const trace::Trace trace = bias_gelu_dropout_trace(false);
  const std::vector<Finding> findings = find_fusion_opportunities(AnalysisContext(trace, {}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].metric("chain_length"), 2);  // only gelu -> dropout remains connected
}

// Per 10 ms step: a matmul, then bias add -> ReLU, each 1 ms moving 8 MiB; the add reads the
// product when `after_matmul`, else a tensor from elsewhere (a residual connection, say).
trace::Trace bias_relu_trace(bool after_matmul) {
  return steps_opened_by_matmul([after_matmul](SyntheticTrace& trace, trace::TimeNs start,
                                               std::uint64_t product, std::uint64_t& tensor) {
    const std::uint64_t biased = tensor++;
    trace.op("add", start + 2 * kMs + 100 * kUs, start + 3 * kMs + 100 * kUs,
             {after_matmul ? product : tensor++}, {biased}, 4 * kMiB, 4 * kMiB, kMiB);
    trace.op("relu", start + 3 * kMs + 200 * kUs, start + 4 * kMs + 200 * kUs, {biased}, {tensor++},
             4 * kMiB, 4 * kMiB, kMiB);
  });
}

TEST(FusionTest, BiasAndActivationAfterAMatmulPointToTheFusedLinearLayer) {
  const trace::Trace trace = bias_relu_trace(true);
  const std::vector<Finding> findings = find_fusion_opportunities(AnalysisContext(trace, {}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].title.find("add -> relu"), std::string::npos) << findings[0].title;
  EXPECT_NE(findings[0].recommendation.find("nn::LinearActivation"), std::string::npos)
      << findings[0].recommendation;
}

TEST(FusionTest, BiasAndActivationNotFedByAMatmulGetTheGeneralAdvice) {
  const trace::Trace trace = bias_relu_trace(false);
  const std::vector<Finding> findings = find_fusion_opportunities(AnalysisContext(trace, {}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].recommendation.find("LinearActivation"), std::string::npos)
      << findings[0].recommendation;
  EXPECT_NE(findings[0].recommendation.find("one fused kernel"), std::string::npos)
      << findings[0].recommendation;
}

TEST(FusionTest, Gp100RecurringElementwiseKernelChainsAreFound) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::read_chrome_json(path);
  const std::vector<Finding> findings = find_fusion_opportunities(AnalysisContext(trace, {}));
  ASSERT_FALSE(findings.empty());
  for (const Finding& finding : findings) {
    EXPECT_GE(finding.metric("chain_length"), 2);
    EXPECT_GT(finding.metric("saving_ns_per_step"), 0);
  }
}

}  // namespace
}  // namespace tscope::analyzer
