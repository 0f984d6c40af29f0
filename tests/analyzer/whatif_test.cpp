// The what-if replay: on a step built so that every replayed time is known by construction, each
// kind of edit moves the step by what its dependencies allow; malformed edits and edits that
// match nothing are refused; and on the real traces of ../shared the replay without edits
// reproduces every step it replays.

#include "tscope/analyzer/whatif.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "shared_trace.h"
#include "synthetic_trace.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/report.h"
#include "tscope/report/name_regex.h"
#include "tscope/trace/host_metadata.h"

namespace tscope::analyzer {
namespace {

using trace::Category;

constexpr trace::TimeNs kUs = 1'000;

// One 100 µs step: op A launches K1 (5-40 µs), op B launches K2, which waits for K1 on the
// stream (40-50 µs); the host then synchronizes (22-55 µs), the sync returning 5 µs after K2
// ends, and runs op C (55-90 µs); the step's own host time ends it (90-100 µs).
trace::Trace known_step() {
  testing::SyntheticTrace trace;
  trace.step("step 1", 0, 100 * kUs, 32);
  trace.span(trace.main(), "A", Category::kCpuOp, 0, 10 * kUs);
  trace.kernel(2 * kUs, 4 * kUs, 5 * kUs, 40 * kUs, "cudaLaunchKernel", "sgemm_128x64");
  trace.span(trace.main(), "B", Category::kCpuOp, 12 * kUs, 20 * kUs);
  trace.kernel(14 * kUs, 16 * kUs, 40 * kUs, 50 * kUs, "cudaLaunchKernel", "relu_kernel");
  trace.span(trace.main(), "cudaStreamSynchronize", Category::kRuntimeApi, 22 * kUs, 55 * kUs);
  trace.span(trace.main(), "C", Category::kCpuOp, 55 * kUs, 90 * kUs);
  return trace.finish();
}

double predicted_step(const trace::Trace& trace, const std::vector<std::string>& texts) {
  std::vector<WhatIfEdit> edits;
  edits.reserve(texts.size());
  for (const std::string& text : texts)
    edits.push_back(parse_edit(text));
  const WhatIfResult result = predict_steps(AnalysisContext(trace, {}), edits);
  EXPECT_EQ(result.replayed_steps, 1u);
  return result.predicted_mean_ns;
}

TEST(WhatIfTest, ReplayWithoutEditsReproducesTheStep) {
  const trace::Trace trace = known_step();
  const WhatIfResult result = predict_steps(AnalysisContext(trace, {}), {});
  ASSERT_EQ(result.steps.size(), 1u);
  EXPECT_TRUE(result.steps[0].replayed) << result.steps[0].why_not;
  EXPECT_EQ(result.steps[0].measured_ns, 100 * kUs);
  EXPECT_EQ(result.steps[0].replayed_ns, 100 * kUs);
  EXPECT_EQ(result.steps[0].predicted_ns, 100 * kUs);
  EXPECT_EQ(result.replay_error_max, 0);
}

TEST(WhatIfTest, FasterKernelsOnThePathShortenTheStepThroughStreamOrderAndTheSync) {
  // K1 5-22.5, K2 then 22.5-27.5 (stream order), the sync returns 5 µs later at 32.5, C and the
  // step's own 10 µs follow: 77.5 µs.
  EXPECT_DOUBLE_EQ(predicted_step(known_step(), {"kernel:sgemm*0.5", "kernel:relu*0.5"}),
                   77.5 * kUs);
  // Both at once by one pattern that matches either name.
  EXPECT_DOUBLE_EQ(predicted_step(known_step(), {"kernel:sgemm|relu*0.5"}), 77.5 * kUs);
}

TEST(WhatIfTest, WorkOffThePathDoesNotMoveTheStep) {
  // B ends 33 µs before the sync returns: removing it changes nothing.
  EXPECT_DOUBLE_EQ(predicted_step(known_step(), {"op:^B$*0"}), 100 * kUs);
}

TEST(WhatIfTest, HostWorkOnThePathMovesTheStepByItsLength) {
  EXPECT_DOUBLE_EQ(predicted_step(known_step(), {"op:^C$*0.5"}), 82.5 * kUs);
}

TEST(WhatIfTest, RemovedSynchronizationLetsTheHostGoOn) {
  // The sync call returns at once (22 µs): C runs 22-57 and the step ends at 67 µs.
  EXPECT_DOUBLE_EQ(predicted_step(known_step(), {"remove-sync:StreamSynchronize"}), 67 * kUs);
}

TEST(WhatIfTest, SlowerLaunchCallsDelayTheKernelsTheyLaunch) {
  // K1's call (2-4 µs) takes twice as long: K1 starts 2 µs later, and with it everything after it
  // on the path.
  EXPECT_DOUBLE_EQ(predicted_step(known_step(), {"op:cudaLaunchKernel*2"}), 102 * kUs);
}

TEST(WhatIfTest, FusedChainTakesItsShareOfTheRunAndItsLaterLaunchesGo) {
  // sgemm (35 µs) then relu (10 µs) as one kernel of half their time, 22.5 µs from 5 µs; relu's
  // launch call is gone from B. The sync returns 5 µs after the fused kernel, at 32.5 µs.
  const trace::Trace trace = known_step();
  const std::vector<WhatIfEdit> edits{parse_edit("fuse:^sgemm_128x64$>^relu_kernel$*0.5")};
  const WhatIfResult result = predict_steps(AnalysisContext(trace, {}), edits);
  EXPECT_EQ(result.matches, std::vector<std::size_t>{1});
  EXPECT_DOUBLE_EQ(result.predicted_mean_ns, 77.5 * kUs);
  // The fused kernel's own time, not the chain's, sets the step: fusing at the chain's full time
  // changes nothing on the path.
  EXPECT_DOUBLE_EQ(predicted_step(known_step(), {"fuse:sgemm>relu*1"}), 100 * kUs);
}

TEST(WhatIfTest, FuseEditsNameTheirChainAndSplitOnlyAtUnquotedArrows) {
  const WhatIfEdit edit = parse_edit("fuse:add>kernel<4\\>>mul*0.3");
  EXPECT_EQ(edit.target, EditTarget::kFuse);
  EXPECT_EQ(edit.chain, (std::vector<std::string>{"add", "kernel<4\\>", "mul"}));
  EXPECT_DOUBLE_EQ(edit.factor, 0.3);
  const std::vector<std::string> names{"void k<1>", "relu"};
  const WhatIfEdit made = parse_edit(fuse_edit(names, 0.25));
  ASSERT_EQ(made.chain.size(), 2u);
  EXPECT_TRUE(tscope::NameRegex(made.chain[0]).matches("void k<1>"));
  EXPECT_DOUBLE_EQ(made.factor, 0.25);
}

TEST(WhatIfTest, RemovedInputWaitShortensTheStepByTheWait) {
  testing::SyntheticTrace synthetic;
  synthetic.step("step 1", 0, 100 * kUs, 32);
  synthetic.span(synthetic.main(), "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                 Category::kUserAnnotation, 0, 40 * kUs);
  synthetic.span(synthetic.main(), "forward", Category::kCpuOp, 40 * kUs, 95 * kUs);
  const trace::Trace trace = synthetic.finish();
  EXPECT_DOUBLE_EQ(predicted_step(trace, {"input-wait*0"}), 60 * kUs);
  EXPECT_DOUBLE_EQ(predicted_step(trace, {"input-wait*0.5"}), 80 * kUs);
}

// A step whose main thread waits 0-50 µs for the batch a loader thread loads 0-49 µs (a handoff
// flow joins them), then runs forward 50-90 µs; the step's own time ends it at 100 µs.
trace::Trace step_waiting_for_a_loader_thread() {
  testing::SyntheticTrace synthetic;
  synthetic.step("step 1", 0, 100 * kUs, 32);
  const trace::EventRef wait =
      synthetic.span(synthetic.main(), "wait for batch", Category::kDataWait, 0, 50 * kUs);
  synthetic.span(synthetic.main(), "forward", Category::kCpuOp, 50 * kUs, 90 * kUs);
  const trace::EventRef load =
      synthetic.span(synthetic.worker(), "load batch", Category::kDataLoaderLoad, 0, 49 * kUs);
  synthetic.flow(trace::FlowKind::kHandoff, load, wait);
  return synthetic.finish();
}

TEST(WhatIfTest, WaitForALoaderThreadEndsWhenItsBatchIsLoaded) {
  const trace::Trace trace = step_waiting_for_a_loader_thread();
  EXPECT_DOUBLE_EQ(predicted_step(trace, {}), 100 * kUs);
  // The batch is ready at 24.5 µs and taken 1 µs later, as measured: forward runs 25.5-65.5.
  EXPECT_DOUBLE_EQ(predicted_step(trace, {"op:load batch*0.5"}), 75.5 * kUs);
  // A slower loader holds the step back by as much.
  EXPECT_DOUBLE_EQ(predicted_step(trace, {"op:load batch*1.5"}), 124.5 * kUs);
  // The input-wait edit takes its share of the wait whatever the loader does.
  EXPECT_DOUBLE_EQ(predicted_step(trace, {"input-wait*0"}), 50 * kUs);
  EXPECT_DOUBLE_EQ(predicted_step(trace, {"input-wait*0.5"}), 75 * kUs);
}

// A 100 µs step with a loader thread, on a host of `cpus` CPUs (nullptr: the trace does not say)
// whose engine runs `engine_threads`: the main thread waits from 0 to `wait_end` for the batch the
// loader loads from 0 to 1 µs before it, then runs forward until `forward_end`, the step's own
// time following; the loader takes the next batch from `wait_end` to `next_loaded`.
struct LoaderStep {
  const char* cpus = nullptr;
  const char* engine_threads = "1";
  trace::TimeNs wait_end = 0;
  trace::TimeNs forward_end = 0;
  trace::TimeNs next_loaded = 0;
};

trace::Trace step_with_a_loader_thread(const LoaderStep& step) {
  testing::SyntheticTrace synthetic;
  if (step.cpus != nullptr) synthetic.metadata(trace::kHostCpusKey, step.cpus);
  synthetic.metadata(trace::kEngineCpuThreadsKey, step.engine_threads);
  synthetic.step("step 1", 0, 100 * kUs, 32);
  const trace::EventRef wait =
      synthetic.span(synthetic.main(), "wait for batch", Category::kDataWait, 0, step.wait_end);
  synthetic.span(synthetic.main(), "forward", Category::kCpuOp, step.wait_end, step.forward_end);
  const trace::EventRef load = synthetic.span(synthetic.worker(), "load batch",
                                              Category::kDataLoaderLoad, 0, step.wait_end - kUs);
  synthetic.span(synthetic.worker(), "load batch", Category::kDataLoaderLoad, step.wait_end,
                 step.next_loaded);
  synthetic.flow(trace::FlowKind::kHandoff, load, wait);
  return synthetic.finish();
}

// The main thread waits 0-20 µs and runs forward 20-80 µs while the loader, busy with the next
// batch from 20 µs to the step's end, holds a core.
trace::Trace step_beside_a_busy_loader(const char* cpus, const char* engine_threads) {
  return step_with_a_loader_thread({cpus, engine_threads, 20 * kUs, 80 * kUs, 100 * kUs});
}

TEST(WhatIfTest, RemovedLoaderWorkGivesBackTheCoreItTookFromTheOps) {
  // Two engine threads and the loader on two CPUs: forward ran at 2/3 of a core's speed a thread.
  const trace::Trace crowded = step_beside_a_busy_loader("2", "2");
  EXPECT_DOUBLE_EQ(predicted_step(crowded, {}), 100 * kUs);
  EXPECT_DOUBLE_EQ(predicted_step(crowded, {"input-wait*0"}), 60 * kUs);
  // Half the loader's work: 2.5 threads on 2 CPUs, forward at 0.8; half the wait.
  EXPECT_DOUBLE_EQ(predicted_step(crowded, {"input-wait*0.5"}), 80 * kUs);
  // Loads that take no time: the batch is handed over 1 µs after the step starts, as measured
  // after its load, and forward runs alone on the CPUs (40 µs); the step's own 20 µs follow.
  EXPECT_DOUBLE_EQ(predicted_step(crowded, {"op:load batch*0"}), 61 * kUs);
  // One engine thread and the loader fit on two CPUs: only the wait goes.
  EXPECT_DOUBLE_EQ(predicted_step(step_beside_a_busy_loader("2", "1"), {"input-wait*0"}), 80 * kUs);
  // A trace that does not say how many CPUs its host had: nothing to share, only the wait goes.
  EXPECT_DOUBLE_EQ(predicted_step(step_beside_a_busy_loader(nullptr, "2"), {"input-wait*0"}),
                   80 * kUs);
}

TEST(WhatIfTest, MoreLoaderWorkersComputeBoundStepLosesOnlyItsWait) {
  // Two workers load a batch in 37 µs between them, while the step computes for 80 µs: the wait
  // goes, and they are busy a share of the step that still fits two CPUs beside one engine thread.
  EXPECT_DOUBLE_EQ(predicted_step(step_beside_a_busy_loader("2", "1"), {"workers=2"}), 80 * kUs);
}

// A loader-bound step on two CPUs and one engine thread: the main thread waits 0-90 µs for its
// batch, then computes until the step ends at 100 µs, while the loader takes the next batch
// 90-179 µs.
trace::Trace step_waiting_for_a_slow_loader(bool cpus_known = true) {
  return step_with_a_loader_thread(
      {cpus_known ? "2" : nullptr, "1", 90 * kUs, 100 * kUs, 179 * kUs});
}

TEST(WhatIfTest, MoreLoaderWorkersSetTheStepsPaceOnTheCpusTheyShare) {
  const trace::Trace trace = step_waiting_for_a_slow_loader();
  // Each load had a core to itself: 89 µs. Two workers busy throughout beside the training thread
  // are three threads on two CPUs: its 10 µs of work take 15 µs, and a batch takes 89 * 3/2 µs
  // between the two, 66.75 µs. The training thread is busy 15 / 66.75 of that time, so a load
  // shares the CPUs with 2.2247 threads: 89 * 2.2247 / 2 / 2 = 49.5 µs a step.
  EXPECT_NEAR(predicted_step(trace, {"workers=2"}), 49.5 * kUs, 0.01 * kUs);
  // One worker and the training thread fit the two CPUs: a batch every 89 µs.
  EXPECT_NEAR(predicted_step(trace, {"workers=1"}), 89 * kUs, 0.01 * kUs);
  // Where the trace does not say how many CPUs its host had, each worker keeps a core: 89 / 2.
  EXPECT_NEAR(predicted_step(step_waiting_for_a_slow_loader(false), {"workers=2"}), 44.5 * kUs,
              0.01 * kUs);
}

TEST(WhatIfTest, MoreLoaderWorkersThanCpusAreRefused) {
  const trace::Trace trace = step_waiting_for_a_slow_loader();
  const WhatIfEdit edit = parse_edit("workers=3");
  EXPECT_THROW(predict_steps(AnalysisContext(trace, {}), std::span(&edit, 1)), AnalyzerError);
  EXPECT_THROW(parse_edit("workers=0"), AnalyzerError);
  EXPECT_THROW(parse_edit("workers=two"), AnalyzerError);
}

// A GPU-bound step: the host launches 3,000 kernels of 10 µs, one call every microsecond, so the
// launch queue fills; from then on each call blocks until the kernel 1,024 launches earlier
// starts and frees a slot, as CUDA does.
trace::Trace step_with_a_full_launch_queue() {
  testing::SyntheticTrace synthetic;
  constexpr int kKernels = 3'000;
  constexpr std::size_t kSlots = 1'024;
  std::vector<trace::TimeNs> kernel_start;
  trace::TimeNs call_start = 0;
  trace::TimeNs gpu_free = 0;
  for (int k = 0; k < kKernels; ++k) {
    trace::TimeNs call_end = call_start + 800;
    const auto index = static_cast<std::size_t>(k);
    // Full: the kernel kSlots launches back has not started when the call begins.
    if (index >= kSlots && kernel_start[index - kSlots] > call_start)
      call_end = std::max(call_end, kernel_start[index - kSlots] + 100);
    const trace::TimeNs start = std::max(call_end + 2'000, gpu_free);
    kernel_start.push_back(start);
    gpu_free = start + 10 * kUs;
    synthetic.kernel(call_start, call_end, start, gpu_free, "cudaLaunchKernel", "gemm_kernel");
    call_start = call_end + 200;
  }
  synthetic.span(synthetic.main(), "cudaDeviceSynchronize", Category::kRuntimeApi, call_start,
                 gpu_free + 5 * kUs);
  synthetic.step("step 1", 0, gpu_free + 10 * kUs, 32);
  return synthetic.finish();
}

TEST(WhatIfTest, LaunchesBlockedOnAFullQueueFollowTheGpu) {
  const trace::Trace trace = step_with_a_full_launch_queue();
  const double measured = predicted_step(trace, {});
  // Kernels twice as fast free their slots twice as fast: the blocked calls return earlier and
  // the step halves (its GPU work), where calls held at their measured lengths would keep the host
  // launching at the old pace.
  const double faster = predicted_step(trace, {"kernel:gemm_kernel*0.5"});
  EXPECT_NEAR(faster / measured, 0.5, 0.01) << faster << " of " << measured;
}

TEST(WhatIfTest, AFullLaunchQueueIsNotAlsoCalledAHostBottleneck) {
  // The host blocked on the GPU's queue is the GPU's bottleneck: the report says so once, and
  // neither the launch analysis nor the critical path calls the blocked calls host-bound.
  const Report report = run_report(step_with_a_full_launch_queue(), {});
  const auto has = [&](std::string_view kind) {
    return std::any_of(report.findings.begin(), report.findings.end(),
                       [&](const Finding& finding) { return finding.kind == kind; });
  };
  EXPECT_TRUE(has("launch_queue_full"));
  EXPECT_FALSE(has("launch_bound"));
  EXPECT_FALSE(has("critical_path_host_bound"));
}

// The span of `track` named `name` in `trace`.
trace::TimeNs duration_of(const trace::Trace& trace, std::uint32_t track, std::string_view name) {
  const trace::SpanColumns& spans = trace.track(track).spans();
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (trace.string(spans.name[i]) == name) return spans.end(i) - spans.start[i];
  }
  ADD_FAILURE() << "no span " << name;
  return 0;
}

TEST(WhatIfTest, SimulatedRunHoldsTheSpansAtTheirReplayedTimes) {
  const trace::Trace trace = known_step();
  const std::vector<WhatIfEdit> edits{parse_edit("kernel:sgemm|relu*0.5")};
  const WhatIfResult result =
      predict_steps(AnalysisContext(trace, {}), edits, {.keep_simulated_trace = true});
  ASSERT_TRUE(result.simulated.has_value());
  const trace::Trace& simulated = *result.simulated;
  EXPECT_EQ(simulated.counts().spans, trace.counts().spans);
  EXPECT_EQ(simulated.flows().size(), trace.flows().size());
  const std::uint32_t main = 0;
  const std::uint32_t gpu = 2;
  EXPECT_EQ(duration_of(simulated, main, "step 1"), 77'500);
  EXPECT_EQ(duration_of(simulated, gpu, "sgemm_128x64"), 17'500);
  EXPECT_EQ(duration_of(simulated, main, "cudaStreamSynchronize"), 10'500);
  EXPECT_EQ(simulated.metadata().values.at("whatif.edits"), "kernel:sgemm|relu*0.5");
  // The simulated run is a trace like any other: its own replay is its steps.
  const WhatIfResult again = predict_steps(AnalysisContext(simulated, {}), {});
  EXPECT_DOUBLE_EQ(again.measured_mean_ns, 77.5 * kUs);
}

TEST(WhatIfTest, MalformedEditsAreRefusedWithTheirText) {
  for (const std::string text :
       {"sgemm", "sgemm*", "sgemm*fast", "sgemm*-1", "*0.5", "kernel:(*0.5", "input-wait",
        "remove-sync:", "fuse:add*0.5", "fuse:add>(*0.5", "fuse:add>relu"}) {
    try {
      parse_edit(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const AnalyzerError& error) {
      EXPECT_NE(std::string(error.what()).find("'" + text + "'"), std::string::npos)
          << error.what();
    }
  }
}

TEST(WhatIfTest, EditThatMatchesNothingIsRefused) {
  const trace::Trace trace = known_step();
  for (const std::string text : {"kernel:^A$*0.5", "op:sgemm*0.5", "remove-sync:^C$"}) {
    const std::vector<WhatIfEdit> edits{parse_edit(text)};
    EXPECT_THROW(predict_steps(AnalysisContext(trace, {}), edits), AnalyzerError) << text;
  }
}

TEST(WhatIfTest, TraceWithoutStepRangesIsRefusedUnlessReplayedAsOneStep) {
  testing::SyntheticTrace synthetic;
  synthetic.span(synthetic.main(), "forward", Category::kCpuOp, 0, 10 * kUs);
  synthetic.span(synthetic.main(), "backward", Category::kCpuOp, 10 * kUs, 30 * kUs);
  const trace::Trace trace = synthetic.finish();
  const AnalysisContext context(trace, {});
  EXPECT_THROW(predict_steps(context, {}), AnalyzerError);
  const std::vector<WhatIfEdit> edits{parse_edit("op:backward*0.5")};
  const WhatIfResult result = predict_steps(context, edits, {.whole_trace_as_step = true});
  ASSERT_EQ(result.replayed_steps, 1u);
  EXPECT_DOUBLE_EQ(result.steps[0].replayed_ns, 30 * kUs);
  EXPECT_DOUBLE_EQ(result.predicted_mean_ns, 20 * kUs);
}

// On every real trace of ../shared with step ranges, the replay without edits reproduces each step
// it replays; a step it leaves out says why.
void expect_replay_reproduces_steps(const trace::Trace& trace) {
  const AnalysisContext context(trace, {});
  ASSERT_FALSE(context.steps().whole_trace);
  const WhatIfResult result = predict_steps(context, {});
  EXPECT_GT(result.replayed_steps, 0u);
  EXPECT_LE(result.replay_error_median, 0.02);
  EXPECT_LE(result.replay_error_max, 0.05);
  for (const StepPrediction& step : result.steps) {
    if (step.replayed) {
      EXPECT_DOUBLE_EQ(step.predicted_ns, step.replayed_ns) << step.name;
    } else {
      EXPECT_FALSE(step.why_not.empty()) << step.name;
    }
  }
}

TEST(WhatIfRealTraceTest, ResNet50V100) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  expect_replay_reproduces_steps(trace);
}

TEST(WhatIfRealTraceTest, NcclRank0A100) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  expect_replay_reproduces_steps(trace);
}

TEST(WhatIfRealTraceTest, MultiRankSample) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "multirank/sampled_rank-0.json.gz");
  expect_replay_reproduces_steps(trace);
}

}  // namespace
}  // namespace tscope::analyzer
