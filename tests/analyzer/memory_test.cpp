// OOM causes and leaks on traces with known allocations.

#include "tscope/analyzer/memory.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>

#include "synthetic_trace.h"
#include "tscope/analyzer/leaks.h"

namespace tscope::analyzer {
namespace {

using trace::Category;
using trace::MemoryAction;
using tscope::testing::SyntheticTrace;

constexpr trace::TimeNs kMs = 1'000'000;
constexpr std::uint64_t kMiB = 1 << 20;
constexpr trace::TimeNs kStep = 10 * kMs;  // how long add_steps makes each step

void add_steps(SyntheticTrace& trace, int count) {
  for (int step = 0; step < count; ++step) {
    trace.span(trace.main(), "step " + std::to_string(step), Category::kStep, step * kStep,
               (step + 1) * kStep);
  }
}

// `count` steps of 10 ms after 64 MiB of parameters made at the start; `in_step` adds each step's
// allocations, given the step's index and start.
trace::Trace steps_after_parameters(
    int count, const std::function<void(SyntheticTrace&, int, trace::TimeNs)>& in_step) {
  SyntheticTrace trace;
  add_steps(trace, count);
  trace.memory(1, MemoryAction::kAlloc, 0x10, 64 * kMiB, "parameters", "init");
  for (int step = 0; step < count; ++step)
    in_step(trace, step, step * kStep);
  return trace.finish();
}

TEST(MemoryTest, LeakGrowthPerStepIsTheRetainedBytes) {
  std::uint64_t address = 0x1000;
  const trace::Trace built = steps_after_parameters(8, [&](SyntheticTrace& trace, int,
                                                           trace::TimeNs start) {
    // A temporary freed within the step, and 3 MiB of loss graph kept alive forever.
    trace.memory(start + kMs, MemoryAction::kAlloc, address, 16 * kMiB, "matmul", "forward");
    trace.memory(start + 2 * kMs, MemoryAction::kAlloc, address + 1, 3 * kMiB, "add", "total_loss");
    trace.memory(start + 5 * kMs, MemoryAction::kFree, address, 16 * kMiB, "matmul", "forward");
    address += 2;
  });
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

// Each step keeps 1 MiB (the leak) while a loader's queue holds, at each step's end, as many
// 16 MiB batches as its threads managed to load: a different count from step to step.
constexpr std::array<int, 12> kBatchesQueuedAtStepEnd{4, 1, 3, 0, 4, 2, 4, 1, 0, 3, 4, 2};

void add_queued_batches(SyntheticTrace& trace, int step, trace::TimeNs start) {
  const auto batches = kBatchesQueuedAtStepEnd[static_cast<std::size_t>(step)];
  for (int batch = 0; batch < batches; ++batch) {
    const std::uint64_t address = 0x100000 + static_cast<std::uint64_t>(step * 8 + batch);
    trace.memory(start + kMs, MemoryAction::kAlloc, address, 16 * kMiB, "empty", "load batch");
    // Consumed in the next step, after this step's end.
    trace.memory(start + kStep + kMs, MemoryAction::kFree, address, 16 * kMiB, "empty",
                 "load batch");
  }
}

TEST(MemoryTest, LeakIsFoundThroughBatchesInFlightAtTheStepEnds) {
  const trace::Trace built = steps_after_parameters(
      static_cast<int>(kBatchesQueuedAtStepEnd.size()),
      [&](SyntheticTrace& trace, int step, trace::TimeNs start) {
        trace.memory(start + 2 * kMs, MemoryAction::kAlloc,
                     0x1000 + static_cast<std::uint64_t>(step), kMiB, "add", "total_loss");
        add_queued_batches(trace, step, start);
      });
  const std::vector<Finding> findings = find_leaks(AnalysisContext(built, {}));
  ASSERT_FALSE(findings.empty());
  ASSERT_EQ(findings[0].kind, "leak");
  EXPECT_DOUBLE_EQ(findings[0].metric("growth_bytes_per_step"), 1.0 * kMiB);
  EXPECT_DOUBLE_EQ(findings[0].metric("top_site_growth_bytes_per_step"), 1.0 * kMiB);
  EXPECT_NE(findings[0].title.find("total_loss / add"), std::string::npos) << findings[0].title;
  EXPECT_NE(findings[0].explanation.find("less what load batch / empty holds there"),
            std::string::npos)
      << findings[0].explanation;
}

TEST(MemoryTest, BatchesInFlightAloneAreNoLeak) {
  const trace::Trace built =
      steps_after_parameters(static_cast<int>(kBatchesQueuedAtStepEnd.size()),
                             [&](SyntheticTrace& trace, int step, trace::TimeNs start) {
                               add_queued_batches(trace, step, start);
                             });
  for (const Finding& finding : find_leaks(AnalysisContext(built, {})))
    EXPECT_NE(finding.kind, "leak");
}

TEST(MemoryTest, CacheThatPlateausIsNotALeak) {
  SyntheticTrace trace;
  add_steps(trace, 8);
  // A cache that grows for two steps and then stays at 8 MiB.
  for (int step = 0; step < 2; ++step) {
    trace.memory(step * kStep + kMs, MemoryAction::kAlloc, 0x100 + static_cast<std::uint64_t>(step),
                 4 * kMiB, "cache", "forward");
  }
  const trace::Trace built = trace.finish();
  for (const Finding& finding : find_leaks(AnalysisContext(built, {})))
    EXPECT_NE(finding.kind, "leak");
}

// An out-of-memory instant as the CPU allocator records it, inside conv2d's im2col.
void add_conv_oom(SyntheticTrace& trace, trace::TimeNs time, std::uint64_t requested,
                  std::uint64_t limit) {
  trace.instant_with_text("out of memory", time,
                          {{"requested_bytes", static_cast<std::int64_t>(requested)},
                           {"limit_bytes", static_cast<std::int64_t>(limit)}},
                          {{"op", "conv2d"}, {"inner_op", "im2col"}});
}

TEST(MemoryTest, OomOfARequestLargerThanTheLimitLeadsWithTheRequestAndBoundsTheBatch) {
  SyntheticTrace trace;
  trace.memory(kMs, MemoryAction::kAlloc, 0x10, kMiB, "empty", "");  // parameters
  trace.memory(5 * kMs, MemoryAction::kAlloc, 0x20, 6 * kMiB, "empty", "load batch");
  trace.step("step 0", 10 * kMs, 20 * kMs, 2048);
  trace.span(trace.main(), "forward", Category::kUserAnnotation, 11 * kMs, 19 * kMs);
  trace.op("conv2d", 11 * kMs, 12 * kMs + 1, {}, {}, 0, 0, 0);
  add_conv_oom(trace, 12 * kMs, 153 * kMiB, 64 * kMiB);
  const trace::Trace built = trace.finish();
  const std::vector<Finding> findings = find_memory_pressure(AnalysisContext(built, {}));
  ASSERT_EQ(findings.size(), 1u);
  const Finding& oom = findings[0];
  EXPECT_EQ(oom.kind, "oom");
  EXPECT_NE(oom.title.find(
                "one request of 153 MiB by conv2d (im2col) under forward is larger than the whole"),
            std::string::npos)
      << oom.title;
  EXPECT_EQ(oom.metric("request_exceeds_limit"), 1);
  EXPECT_EQ(oom.metric("bytes_parameters"), 1.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_input_batches"), 6.0 * kMiB);
  // Only a failed step: the request and the batch scale, the parameters do not, and the rest of
  // the step is unknown: (64 - 1) MiB / ((153 + 6) MiB / 2048) = 811.5, at most 811.
  EXPECT_EQ(oom.metric("largest_batch_is_bound"), 1);
  EXPECT_EQ(oom.metric("fixed_bytes"), 1.0 * kMiB);
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 811);
  EXPECT_NE(oom.recommendation.find("at most 811"), std::string::npos) << oom.recommendation;
  EXPECT_EQ(oom.recommendation.find("free it earlier"), std::string::npos) << oom.recommendation;
}

TEST(MemoryTest, OomWithNoRoomListsTheLiveTensorsByOwnerAndCategory) {
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
  EXPECT_NE(oom.title.find("finds no room"), std::string::npos) << oom.title;
  EXPECT_NE(oom.title.find("largest holder: forward / gelu"), std::string::npos) << oom.title;
  EXPECT_NE(oom.explanation.find("forward / gelu 40.0 MiB in 1 blocks (activations)"),
            std::string::npos)
      << oom.explanation;
  EXPECT_EQ(oom.metric("request_exceeds_limit"), 0);
  EXPECT_EQ(oom.metric("live_bytes"), 74.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_activations"), 60.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_parameters"), 10.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_input_batches"), 4.0 * kMiB);
  // The batch comes from the instant; everything was allocated in the step, so (74 + 4) MiB scale
  // over 64 samples and 76 MiB hold at most 62.
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 62);
  EXPECT_NE(oom.recommendation.find("free it earlier"), std::string::npos);
}

TEST(MemoryTest, OomWithFreeButFragmentedCacheComparesTheLargestFreeBlockWithTheRequest) {
  SyntheticTrace trace;
  add_steps(trace, 1);
  trace.memory(kMs, MemoryAction::kAlloc, 0x10, 4 * kMiB, "matmul", "forward");
  trace.instant_with_text("out of memory", 2 * kMs,
                          {{"requested_bytes", static_cast<std::int64_t>(14 * kMiB)},
                           {"limit_bytes", static_cast<std::int64_t>(20 * kMiB)},
                           {"allocated_bytes", static_cast<std::int64_t>(4 * kMiB)},
                           {"reserved_bytes", static_cast<std::int64_t>(20 * kMiB)},
                           {"largest_free_block_bytes", static_cast<std::int64_t>(12 * kMiB)}},
                          {{"op", "matmul"}});
  const trace::Trace built = trace.finish();
  const Finding oom = find_memory_pressure(AnalysisContext(built, {})).at(0);
  EXPECT_EQ(oom.metric("fragmented"), 1);
  EXPECT_EQ(oom.metric("largest_free_block_bytes"), 12.0 * kMiB);
  EXPECT_NE(oom.title.find(
                "finds 16.0 MiB free in the allocator's cache but no block larger than 12.0 MiB"),
            std::string::npos)
      << oom.title;
  EXPECT_NE(oom.recommendation.find("empty_cache"), std::string::npos) << oom.recommendation;
}

// What halving on out of memory leaves in a trace: a step at batch 256 cut short, then two
// complete steps at 128 whose peak is 1 MiB of parameters, 1 MiB of a parameter's gradient (kept
// until the next step's zero_grad) and 25 MiB of batch-sized activations.
SyntheticTrace halved_batch_trace() {
  SyntheticTrace trace;
  trace.memory(kMs, MemoryAction::kAlloc, 0x10, kMiB, "empty", "");
  trace.step("step 0", 10 * kMs, 20 * kMs, 256);
  trace.memory(11 * kMs, MemoryAction::kAlloc, 0x100, 20 * kMiB, "im2col", "forward");
  add_conv_oom(trace, 12 * kMs, 30 * kMiB, 40 * kMiB);
  trace.memory(13 * kMs, MemoryAction::kFree, 0x100, 20 * kMiB, "im2col", "forward");
  std::uint64_t address = 0x200;
  for (int step = 0; step < 2; ++step) {
    const trace::TimeNs start = (30 + 10 * step) * kMs;
    trace.step("step " + std::to_string(step), start, start + 10 * kMs, 128);
    trace.memory(start + kMs, MemoryAction::kAlloc, address, 10 * kMiB, "im2col", "forward");
    trace.memory(start + 2 * kMs, MemoryAction::kAlloc, address + 1, 15 * kMiB, "matmul",
                 "forward");
    trace.memory(start + 3 * kMs, MemoryAction::kAlloc, address + 2, kMiB, "matmul", "backward");
    trace.memory(start + 5 * kMs, MemoryAction::kFree, address, 10 * kMiB, "", "");
    trace.memory(start + 5 * kMs, MemoryAction::kFree, address + 1, 15 * kMiB, "", "");
    trace.memory(start + 10 * kMs + kMs / 2, MemoryAction::kFree, address + 2, kMiB, "", "");
    address += 3;
  }
  return trace;
}

TEST(MemoryTest, CompleteStepsAfterAHalvedBatchGiveAFitOfFixedAndPerSampleBytes) {
  const trace::Trace built = halved_batch_trace().finish();
  const Finding oom = find_memory_pressure(AnalysisContext(built, {})).at(0);
  EXPECT_EQ(oom.metric("largest_batch_is_bound"), 0);
  EXPECT_EQ(oom.metric("complete_steps"), 2);
  EXPECT_EQ(oom.metric("failed_steps"), 1);
  EXPECT_EQ(oom.metric("fixed_bytes"), 2.0 * kMiB);
  EXPECT_EQ(oom.metric("bytes_per_sample"), 25.0 * kMiB / 128);
  // (40 - 2) MiB / (25 MiB / 128) = 194.6; the failed step (51 MiB needed at 256) lies below the
  // line.
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 194);
  EXPECT_NE(oom.recommendation.find("is 194 (it failed at 256)"), std::string::npos)
      << oom.recommendation;
}

TEST(MemoryTest, AFailedStepAboveTheLineRaisesThePerSampleBytes) {
  SyntheticTrace trace = halved_batch_trace();
  // A second failure at batch 256 that had already allocated 70 MiB: more than the line allows.
  trace.step("step 2", 60 * kMs, 70 * kMs, 256);
  trace.memory(61 * kMs, MemoryAction::kAlloc, 0x900, 70 * kMiB, "matmul", "forward");
  add_conv_oom(trace, 62 * kMs, kMiB, 40 * kMiB);
  const trace::Trace built = trace.finish();
  const Finding oom = find_memory_pressure(AnalysisContext(built, {})).at(0);
  // 1 (parameters) + 70 + 1 = 72 MiB at 256 samples: (72 - 2) / 256 MiB per sample.
  EXPECT_EQ(oom.metric("bytes_per_sample"), 70.0 * kMiB / 256);
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 138);
}

TEST(MemoryTest, CompleteStepsAtTwoBatchSizesAreFittedByALine) {
  SyntheticTrace trace;
  std::uint64_t address = 0x100;
  for (int step = 0; step < 4; ++step) {
    const std::int64_t batch = step < 2 ? 64 : 128;
    const trace::TimeNs start = (10 + 10 * step) * kMs;
    trace.step("step " + std::to_string(step), start, start + 10 * kMs, batch);
    trace.memory(start + kMs, MemoryAction::kAlloc, address,
                 3 * kMiB + static_cast<std::uint64_t>(batch) * kMiB / 8, "matmul", "forward");
    trace.memory(start + 2 * kMs, MemoryAction::kFree, address,
                 3 * kMiB + static_cast<std::uint64_t>(batch) * kMiB / 8, "matmul", "forward");
    ++address;
  }
  trace.instant("out of memory", 60 * kMs,
                {{"requested_bytes", static_cast<std::int64_t>(kMiB)},
                 {"limit_bytes", static_cast<std::int64_t>(35 * kMiB)}});
  const trace::Trace built = trace.finish();
  const Finding oom = find_memory_pressure(AnalysisContext(built, {})).at(0);
  EXPECT_NEAR(oom.metric("fixed_bytes"), 3.0 * kMiB, 1);
  EXPECT_NEAR(oom.metric("bytes_per_sample"), kMiB / 8.0, 1e-6);
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 256);
  EXPECT_NE(oom.recommendation.find("least-squares line"), std::string::npos) << oom.recommendation;
}

TEST(MemoryTest, StateTheFirstStepMakesAfterItsPeakCountsInItsPeakForTheFit) {
  // 1 MiB of parameters; the first step (batch 256, 20 MiB of activations) makes the optimizer's
  // two 1 MiB moments at its update, after its peak; the two later steps (batch 128, 10 MiB of
  // activations) hold them throughout.
  SyntheticTrace trace;
  trace.memory(kMs, MemoryAction::kAlloc, 0x10, kMiB, "empty", "");
  std::uint64_t address = 0x100;
  for (int step = 0; step < 3; ++step) {
    const std::int64_t batch = step == 0 ? 256 : 128;
    const trace::TimeNs start = (10 + 10 * step) * kMs;
    const std::uint64_t activations = static_cast<std::uint64_t>(batch) * kMiB * 10 / 128;
    trace.step("step " + std::to_string(step), start, start + 10 * kMs, batch);
    trace.memory(start + kMs, MemoryAction::kAlloc, address, activations, "matmul", "forward");
    trace.memory(start + 3 * kMs, MemoryAction::kFree, address, activations, "matmul", "forward");
    if (step == 0) {
      trace.memory(start + 5 * kMs, MemoryAction::kAlloc, 0x20, kMiB, "zeros_like", "optimizer");
      trace.memory(start + 5 * kMs, MemoryAction::kAlloc, 0x30, kMiB, "zeros_like", "optimizer");
    }
    ++address;
  }
  trace.instant("out of memory", 60 * kMs,
                {{"requested_bytes", static_cast<std::int64_t>(kMiB)},
                 {"limit_bytes", static_cast<std::int64_t>(40 * kMiB)}});
  const trace::Trace built = trace.finish();
  const Finding oom = find_memory_pressure(AnalysisContext(built, {})).at(0);
  // The line through (128, 13 MiB) and the first step's peak with its moments, (256, 23 MiB):
  // 3 MiB of state and 10/128 MiB per sample, so (40 - 3) / (10 / 128) = 473.6. Through its own
  // peak of 21 MiB it would be 5 MiB and 1/16 MiB per sample: 560, which the second step at 560
  // (3 + 43.75 MiB) cannot run.
  EXPECT_NEAR(oom.metric("fixed_bytes"), 3.0 * kMiB, 1);
  EXPECT_NEAR(oom.metric("bytes_per_sample"), 10.0 * kMiB / 128, 1e-6);
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 473);
}

TEST(MemoryTest, AStepRetriedUnderItsNameWithoutAnOomInsideIsNoCompleteStep) {
  // A loader worker runs out of memory during step 0 (batch 128); the step that waits for that
  // batch, step 1 at 256, fails when it begins and is retried at 128. Its truncated peak is no
  // complete step's.
  SyntheticTrace trace;
  trace.memory(kMs, MemoryAction::kAlloc, 0x10, kMiB, "empty", "");
  struct Attempt {
    const char* name;
    std::int64_t batch;
    std::uint64_t activations;
  };
  const Attempt attempts[] = {{"step 0", 128, 10 * kMiB},
                              {"step 1", 256, 15 * kMiB},
                              {"step 1", 128, 10 * kMiB},
                              {"step 2", 128, 10 * kMiB}};
  std::uint64_t address = 0x100;
  trace::TimeNs start = 10 * kMs;
  for (const Attempt& attempt : attempts) {
    trace.step(attempt.name, start, start + 10 * kMs, attempt.batch);
    trace.memory(start + kMs, MemoryAction::kAlloc, address, attempt.activations, "matmul",
                 "forward");
    trace.memory(start + 3 * kMs, MemoryAction::kFree, address, attempt.activations, "matmul",
                 "forward");
    ++address;
    start += 10 * kMs;
  }
  trace.instant("out of memory", 15 * kMs,
                {{"requested_bytes", static_cast<std::int64_t>(4 * kMiB)},
                 {"limit_bytes", static_cast<std::int64_t>(40 * kMiB)}});
  const trace::Trace built = trace.finish();
  const Finding oom = find_memory_pressure(AnalysisContext(built, {})).at(0);
  // From the two complete steps at 128: 1 MiB of parameters and 10/128 MiB per sample, so
  // (40 - 1) / (10 / 128) = 499.2. A line through the retried step's 16 MiB at 256 would give
  // 6 MiB and 5/128 MiB per sample: 870.
  EXPECT_EQ(oom.metric("complete_steps"), 2);
  EXPECT_NEAR(oom.metric("fixed_bytes"), 1.0 * kMiB, 1);
  EXPECT_EQ(oom.metric("largest_batch_that_fits"), 499);
}

TEST(MemoryTest, LiveSetThatReturnsToTheSameLevelIsNoLeak) {
  // Accumulated over three steps and then released, again and again: up and back down.
  const std::uint64_t address = 0x1000;
  const trace::Trace built =
      steps_after_parameters(9, [&](SyntheticTrace& trace, int step, trace::TimeNs start) {
        trace.memory(start + kMs, MemoryAction::kAlloc, address + static_cast<std::uint64_t>(step),
                     4 * kMiB, "add", "accumulate");
        if (step % 3 == 2) {
          for (int held = step - 2; held <= step; ++held) {
            trace.memory(start + 5 * kMs, MemoryAction::kFree,
                         address + static_cast<std::uint64_t>(held), 4 * kMiB, "add", "accumulate");
          }
        }
      });
  for (const Finding& finding : find_leaks(AnalysisContext(built, {})))
    EXPECT_NE(finding.kind, "leak");
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
