// OOM causes and leaks on traces with known allocations.

#include <gtest/gtest.h>

#include "synthetic_trace.h"
#include "tscope/analyzer/leaks.h"
#include "tscope/analyzer/oom.h"

namespace tscope::analyzer {
namespace {

using trace::Category;
using trace::MemoryAction;
using tscope::testing::SyntheticTrace;

constexpr trace::TimeNs kMs = 1'000'000;
constexpr std::uint64_t kMiB = 1 << 20;

void add_steps(SyntheticTrace& trace, int count) {
  for (int step = 0; step < count; ++step) {
    trace.span(trace.main(), "step " + std::to_string(step), Category::kStep, step * 10 * kMs, (step + 1) * 10 * kMs);
  }
}

TEST(MemoryTest, LeakGrowthPerStepIsTheRetainedBytes) {
  SyntheticTrace trace;
  add_steps(trace, 8);
  trace.memory(1, MemoryAction::kAlloc, 0x10, 64 * kMiB, "parameters", "init");
  std::uint64_t address = 0x1000;
  for (int step = 0; step < 8; ++step) {
    const trace::TimeNs start = step * 10 * kMs;
    // A temporary freed within the step, and 3 MiB of loss graph kept alive forever.
    trace.memory(start + kMs, MemoryAction::kAlloc, address, 16 * kMiB, "matmul", "forward");
    trace.memory(start + 2 * kMs, MemoryAction::kAlloc, address + 1, 3 * kMiB, "add", "total_loss");
    trace.memory(start + 5 * kMs, MemoryAction::kFree, address, 16 * kMiB, "matmul", "forward");
    address += 2;
  }
  const trace::Trace built = trace.finish();
  const std::vector<Finding> findings = find_leaks(AnalysisContext(built, {}));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, "leak");
  EXPECT_DOUBLE_EQ(findings[0].metric("growth_bytes_per_step"), 3.0 * kMiB);
  EXPECT_DOUBLE_EQ(findings[0].metric("top_site_growth_bytes_per_step"), 3.0 * kMiB);
  EXPECT_NE(findings[0].title.find("total_loss / add"), std::string::npos);
  // Still alive at the end: the eight retained blocks and the parameters made in the first step.
  EXPECT_EQ(findings[1].kind, "unfreed_at_end");
  EXPECT_EQ(findings[1].metric("blocks"), 9);
  EXPECT_EQ(findings[1].metric("bytes"), (8 * 3 + 64.0) * kMiB);
}

TEST(MemoryTest, CacheThatPlateausIsNotALeak) {
  SyntheticTrace trace;
  add_steps(trace, 8);
  // A cache that grows for two steps and then stays at 8 MiB.
  for (int step = 0; step < 2; ++step) {
    trace.memory(step * 10 * kMs + kMs, MemoryAction::kAlloc, 0x100 + static_cast<std::uint64_t>(step), 4 * kMiB,
                 "cache", "forward");
  }
  const trace::Trace built = trace.finish();
  for (const Finding& finding : find_leaks(AnalysisContext(built, {}))) EXPECT_NE(finding.kind, "leak");
}

TEST(MemoryTest, OomReportNamesTheLargestConsumerAndTheBatchThatFits) {
  SyntheticTrace trace;
  add_steps(trace, 1);
  trace.memory(1, MemoryAction::kAlloc, 0x10, 10 * kMiB, "linear", "parameters");
  trace.memory(2, MemoryAction::kAlloc, 0x20, 40 * kMiB, "gelu", "forward");
  trace.memory(3, MemoryAction::kAlloc, 0x30, 20 * kMiB, "matmul", "forward");
  trace.memory(4, MemoryAction::kAlloc, 0x40, 4 * kMiB, "copy", "data loader");
  trace.instant("out of memory", 5,
                {{"requested_bytes", static_cast<std::int64_t>(4 * kMiB)},
                 {"limit_bytes", static_cast<std::int64_t>(76 * kMiB)},
                 {"batch_size", 64}});
  const trace::Trace built = trace.finish();
  const std::vector<Finding> findings = find_memory_pressure(AnalysisContext(built, {}));
  ASSERT_EQ(findings.size(), 1u);
  const Finding& oom = findings[0];
  EXPECT_EQ(oom.kind, "oom");
  EXPECT_EQ(oom.severity, Severity::kHigh);
  EXPECT_NE(oom.title.find("largest consumer: forward / gelu"), std::string::npos);
  EXPECT_EQ(oom.metric("live_bytes"), 74.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_activations"), 60.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_parameters"), 10.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_input_batches"), 4.0 * kMiB);
  // (60 + 4) MiB of activations for 64 samples = 1 MiB each; 76 - 14 MiB fixed leaves room for 62.
  EXPECT_EQ(oom.metric("activation_bytes_per_sample"), 1.0 * kMiB);
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 62);
}

TEST(MemoryTest, WithoutOomThePeakIsReportedAsInfo) {
  SyntheticTrace trace;
  add_steps(trace, 1);
  trace.memory(1, MemoryAction::kAlloc, 0x10, 8 * kMiB, "matmul", "forward");
  trace.memory(2, MemoryAction::kAlloc, 0x20, 8 * kMiB, "matmul", "forward");
  trace.memory(3, MemoryAction::kFree, 0x10, 8 * kMiB, "matmul", "forward");
  const trace::Trace built = trace.finish();
  const std::vector<Finding> findings = find_memory_pressure(AnalysisContext(built, {}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "memory_peak");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
  EXPECT_EQ(findings[0].metric("peak_live_bytes"), 16.0 * kMiB);
}

}  // namespace
}  // namespace tscope::analyzer
