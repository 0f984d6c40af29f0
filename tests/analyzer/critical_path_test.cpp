// The critical path of a step: exactly, on a trace built so that the path is known by
// construction, and on the real Kineto traces in ../shared, where each step's path must account
// for the whole step, in order, and run through the waits the trace records.

#include "tscope/analyzer/critical_path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "synthetic_trace.h"
#include "test_data.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/capture_window.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

using trace::Category;
using tscope::testing::shared_data_path;

constexpr trace::TimeNs kUs = 1'000;

AnalysisOptions with_segments() {
  AnalysisOptions options;
  options.keep_path_segments = true;
  return options;
}

double part(const CriticalPath& path, PathPart which) {
  return path.parts[static_cast<std::size_t>(which)];
}

const PathEntry* on_path(const CriticalPath& path, std::string_view name) {
  const auto found = std::find_if(path.on_path.begin(), path.on_path.end(),
                                  [&](const PathEntry& entry) { return entry.name == name; });
  return found == path.on_path.end() ? nullptr : &*found;
}

// One 100 µs step: op A launches K1 (5-40 µs), op B launches K2, which waits for K1 on the
// stream (40-50 µs); the host then synchronizes (22-55 µs) and runs op C (55-90 µs). The path
// from the step's end: the step's own host time 90-100, C, the sync's return after K2, K2, K1
// (stream order: K2 was launched long before K1 ended), K1's launch delay from its call at 2 µs,
// and A's first 2 µs. B and K2's launch are off the path.
trace::Trace known_path_trace() {
  testing::SyntheticTrace trace;
  trace.step("step 1", 0, 100 * kUs, 32);
  trace.span(trace.main(), "A", Category::kCpuOp, 0, 10 * kUs);
  trace.kernel(2 * kUs, 4 * kUs, 5 * kUs, 40 * kUs);
  trace.span(trace.main(), "B", Category::kCpuOp, 12 * kUs, 20 * kUs);
  trace.kernel(14 * kUs, 16 * kUs, 40 * kUs, 50 * kUs);
  trace.span(trace.main(), "cudaStreamSynchronize", Category::kRuntimeApi, 22 * kUs, 55 * kUs);
  trace.span(trace.main(), "C", Category::kCpuOp, 55 * kUs, 90 * kUs);
  return trace.finish();
}

TEST(CriticalPathTest, KnownPathIsFoundExactly) {
  const trace::Trace trace = known_path_trace();
  const AnalysisContext context(trace, with_segments());
  const CriticalPath path = compute_critical_path(context);
  ASSERT_EQ(path.steps.size(), 1u);
  EXPECT_EQ(path.step_ns, 100 * kUs);
  EXPECT_EQ(part(path, PathPart::kHostCompute), (10 + 35 + 2) * kUs);
  EXPECT_EQ(part(path, PathPart::kSync), 5 * kUs);
  EXPECT_EQ(part(path, PathPart::kKernel), (35 + 10) * kUs);
  EXPECT_EQ(part(path, PathPart::kLaunch), 3 * kUs);
  EXPECT_EQ(part(path, PathPart::kGpuWait), 0);
  EXPECT_EQ(part(path, PathPart::kIdle), 0);

  // Segments in time order: A, K1's launch, K1, K2, the sync's return, C, the step's own time.
  std::vector<std::pair<trace::TimeNs, trace::TimeNs>> stretches;
  stretches.reserve(path.segments.size());
  for (const PathSegment& segment : path.segments)
    stretches.emplace_back(segment.start / kUs, segment.end / kUs);
  const std::vector<std::pair<trace::TimeNs, trace::TimeNs>> expected{
      {0, 2}, {2, 5}, {5, 40}, {40, 50}, {50, 55}, {55, 90}, {90, 100}};
  EXPECT_EQ(stretches, expected);

  ASSERT_NE(on_path(path, "gemm_kernel"), nullptr);
  EXPECT_EQ(on_path(path, "gemm_kernel")->path_ns, 45 * kUs);
  ASSERT_NE(on_path(path, "C"), nullptr);
  EXPECT_EQ(on_path(path, "C")->path_ns, 35 * kUs);
  EXPECT_EQ(on_path(path, "B"), nullptr);
}

TEST(CriticalPathTest, OffPathOpHasTheSlackUntilTheSyncReturns) {
  const trace::Trace trace = known_path_trace();
  const CriticalPath path = compute_critical_path(AnalysisContext(trace, with_segments()));
  // B ends at 20 µs; the host after it (2 µs to the sync call) is work, then the host only waits
  // until the sync returns at 55 µs: B could end 33 µs later without moving the step's end.
  const auto b = std::find_if(path.off_path.begin(), path.off_path.end(),
                              [](const SlackEntry& entry) { return entry.name == "B"; });
  ASSERT_NE(b, path.off_path.end());
  EXPECT_EQ(b->total_ns, 8 * kUs);
  EXPECT_EQ(b->min_slack_ns, 33 * kUs);
  // The one launch call on the path takes its name off the off-path list.
  EXPECT_TRUE(std::none_of(path.off_path.begin(), path.off_path.end(),
                           [](const SlackEntry& e) { return e.name == "cudaLaunchKernel"; }));
}

TEST(CriticalPathTest, HostBoundPathOfAGpuTraceIsAFinding) {
  // Ten 1 µs kernels, each launched by a 9 µs call every 10 µs and starting 0.5 µs after it
  // returns; a device synchronization (100-101.5 µs) waits for the last. The GPU idles while the
  // host launches, so the path runs from launch call to launch call.
  testing::SyntheticTrace synthetic;
  synthetic.step("step 1", 0, 102 * kUs, 32);
  for (trace::TimeNs i = 0; i < 10; ++i)
    synthetic.kernel(i * 10 * kUs, i * 10 * kUs + 9 * kUs, i * 10 * kUs + 9 * kUs + 500,
                     i * 10 * kUs + 10 * kUs + 500);
  synthetic.span(synthetic.main(), "cudaDeviceSynchronize", Category::kRuntimeApi, 100 * kUs,
                 101 * kUs + 500);
  const trace::Trace trace = synthetic.finish();
  const AnalysisContext context(trace, with_segments());
  const CriticalPath path = compute_critical_path(context);
  const std::vector<Finding> findings = find_critical_path_problems(context, path);
  const auto host_bound = std::find_if(findings.begin(), findings.end(), [](const Finding& f) {
    return f.kind == "critical_path_host_bound";
  });
  ASSERT_NE(host_bound, findings.end());
  // Nine launch calls of 9 µs and the last one's 9.5 µs to its kernel's start; the host's 1 µs
  // between calls (nine of them) and the 0.5 µs after the sync; the last kernel; the sync's return.
  EXPECT_EQ(part(path, PathPart::kLaunch), 90 * kUs + 500);
  EXPECT_EQ(part(path, PathPart::kHostCompute), 9 * kUs + 500);
  EXPECT_EQ(part(path, PathPart::kKernel), 1 * kUs);
  EXPECT_EQ(part(path, PathPart::kSync), 1 * kUs);
  EXPECT_GE(host_bound->cost.share_of_step, 0.9);
  EXPECT_EQ(host_bound->severity, Severity::kHigh);
}

// Every step's path covers the step exactly, stretch after stretch.
void expect_paths_cover_their_steps(const CriticalPath& path, const StepSet& steps) {
  ASSERT_EQ(path.steps.size(), steps.steps.size());
  std::size_t segment = 0;
  double mean = 0;
  for (std::size_t s = 0; s < steps.steps.size(); ++s) {
    const Step& step = steps.steps[s];
    const PathParts& parts = path.steps[s].parts;
    const double total = std::accumulate(parts.begin(), parts.end(), 0.0);
    EXPECT_EQ(total, static_cast<double>(step.end - step.start)) << step.name;
    trace::TimeNs at = step.start;
    while (segment < path.segments.size() && path.segments[segment].end <= step.end &&
           at < step.end) {
      EXPECT_EQ(path.segments[segment].start, at) << step.name;
      EXPECT_LT(path.segments[segment].start, path.segments[segment].end);
      at = path.segments[segment].end;
      ++segment;
    }
    EXPECT_EQ(at, step.end) << step.name;
    mean += total / static_cast<double>(steps.steps.size());
  }
  EXPECT_EQ(segment, path.segments.size());
  EXPECT_NEAR(std::accumulate(path.parts.begin(), path.parts.end(), 0.0), mean, 1e-6 * mean);
}

struct RealTrace {
  trace::Trace trace;
  CriticalPath path;
  StepSet steps;
};

RealTrace analyze(const std::string& relative) {
  RealTrace result;
  result.trace = trace::read_chrome_json(shared_data_path("traces/" + relative));
  const AnalysisContext context(result.trace, with_segments());
  result.path = compute_critical_path(context);
  result.steps = context.steps();
  return result;
}

TEST(CriticalPathTest, ResNet50V100PathStaysOnTheHostThatNeverWaitsForKernels) {
  const auto path = shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const RealTrace real =
      analyze("kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  expect_paths_cover_their_steps(real.path, real.steps);
  // The training thread's 12 cudaStreamSynchronize calls take 551 µs in all and each step's
  // GPU work (about 100 ms of its 175 ms) is queued ahead of the host: the host never waits for
  // a kernel, so no kernel is on the path, and all of the DataLoader's time in the six steps is
  // (Python over the JSON: 415,791 µs of `enumerate(DataLoader)` spans in the step ranges).
  EXPECT_EQ(part(real.path, PathPart::kKernel), 0);
  EXPECT_DOUBLE_EQ(part(real.path, PathPart::kInputWait), 415'791'000.0 / 6);
  const Report report = run_report(real.trace, {});
  const auto host_bound =
      std::find_if(report.findings.begin(), report.findings.end(),
                   [](const Finding& f) { return f.kind == "critical_path_host_bound"; });
  ASSERT_NE(host_bound, report.findings.end());
  EXPECT_EQ(host_bound->severity, Severity::kHigh);
}

TEST(CriticalPathTest, AlexNetA100PathFollowsSynchronizationsAndEventWaits) {
  const auto path = shared_data_path("traces/kineto/hta_critical_path_alexnet_a100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const RealTrace real = analyze("kineto/hta_critical_path_alexnet_a100.json.gz");
  expect_paths_cover_their_steps(real.path, real.steps);
  EXPECT_GT(part(real.path, PathPart::kKernel), 0);
  EXPECT_GT(part(real.path, PathPart::kCopy), 0);
  EXPECT_GT(part(real.path, PathPart::kSync), 0);
}

// The first measured forward pass of the AlexNet benchmark, as a capture window: its path runs
// from the host's allocations into the GPU, where Kineto's `Stream Wait Event` records (stream 7
// waiting for events recorded on stream 20) carry it from one stream to the other.
TEST(CriticalPathTest, AlexNetForwardPathCrossesStreamsAtEventWaits) {
  const auto file = shared_data_path("traces/kineto/hta_critical_path_alexnet_a100.json.gz");
  TSCOPE_REQUIRE_FILE(file);
  trace::Trace trace = trace::read_chrome_json(file);
  const auto forward = trace.strings().find("[param|pytorch.model.alex_net|0|0|0|measure|forward]");
  ASSERT_TRUE(forward);
  std::optional<trace::CaptureWindow> window;
  for (const trace::Track& track : trace.tracks()) {
    const trace::SpanColumns& spans = track.spans();
    const auto found = std::find(spans.name.begin(), spans.name.end(), *forward);
    if (found == spans.name.end()) continue;
    const auto index = static_cast<std::size_t>(found - spans.name.begin());
    window = trace::CaptureWindow{spans.start[index], spans.end(index)};
    break;
  }
  ASSERT_TRUE(window);
  trace::set_capture_window(trace.metadata(), *window);
  const AnalysisContext context(trace, with_segments());
  const CriticalPath path = compute_critical_path(context);
  expect_paths_cover_their_steps(path, context.steps());
  EXPECT_GT(part(path, PathPart::kKernel), 0);
  // A GPU wait between kernels of two different streams: an event wait that was binding.
  bool crossed = false;
  for (std::size_t i = 1; i + 1 < path.segments.size(); ++i) {
    const PathSegment& before = path.segments[i - 1];
    const PathSegment& after = path.segments[i + 1];
    crossed |= path.segments[i].part == PathPart::kGpuWait && before.part == PathPart::kKernel &&
               after.part == PathPart::kKernel && before.event.track != after.event.track;
  }
  EXPECT_TRUE(crossed);
}

TEST(CriticalPathTest, Gp100WholeTracePathCoversIt) {
  const auto path =
      shared_data_path("traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const RealTrace real = analyze("kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  EXPECT_TRUE(real.steps.whole_trace);
  expect_paths_cover_their_steps(real.path, real.steps);
}

TEST(CriticalPathTest, ReportCarriesThePathAndItsFindings) {
  const trace::Trace trace = known_path_trace();
  const Report report = run_report(trace, {});
  ASSERT_TRUE(report.critical_path());
  EXPECT_EQ(report.critical_path()->step_ns, 100 * kUs);
  // The report keeps the sums, not the stretches, unless asked (the viewer asks).
  EXPECT_TRUE(report.critical_path()->segments.empty());
  EXPECT_EQ(report.critical_path()->parts,
            compute_critical_path(AnalysisContext(trace, with_segments())).parts);
  ReportOptions only_time;
  only_time.only = {"time"};
  EXPECT_FALSE(run_report(trace, only_time).critical_path());
}

}  // namespace
}  // namespace tscope::analyzer
