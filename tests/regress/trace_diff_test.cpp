// Trace diff: per-step calls and time of ops and kernels, added and removed names, the order by
// time added, and step distributions, on built traces and on real Kineto traces.

#include "tscope/regress/trace_diff.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_data.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::regress {
namespace {

using trace::Category;

struct SpanSpec {
  Category category;
  const char* name;
  trace::TimeNs start;
  trace::TimeNs end;
};

// A host thread with `steps` back-to-back steps of `step_ns`, each holding the given spans
// (times relative to the step's start); kernels go on a GPU stream.
trace::Trace training_trace(int steps, trace::TimeNs step_ns,
                            const std::vector<SpanSpec>& per_step) {
  trace::TraceBuilder builder;
  const std::uint32_t process = builder.add_process({.pid = 1, .name = builder.intern("train")});
  const std::uint32_t host = builder.add_track(
      {.kind = trace::TrackKind::kHostThread, .process = process, .thread_id = 1});
  const std::uint32_t stream = builder.add_track(
      {.kind = trace::TrackKind::kGpuStream, .process = process, .device = 0, .stream = 7});
  for (int step = 0; step < steps; ++step) {
    const trace::TimeNs base = step * step_ns;
    trace::SpanRecord step_span;
    step_span.start = base;
    step_span.end = base + step_ns;
    step_span.name = builder.intern("ProfilerStep#" + std::to_string(step));
    step_span.category = Category::kStep;
    builder.add_span(host, step_span);
    for (const SpanSpec& spec : per_step) {
      trace::SpanRecord span;
      span.start = base + spec.start;
      span.end = base + spec.end;
      span.name = builder.intern(spec.name);
      span.category = spec.category;
      builder.add_span(spec.category == Category::kKernel ? stream : host, span);
    }
  }
  return builder.finalize();
}

const DiffEntry& entry_named(const TraceDiff& diff, const std::string& name) {
  const auto found = std::find_if(diff.entries.begin(), diff.entries.end(),
                                  [&](const DiffEntry& entry) { return entry.name == name; });
  EXPECT_NE(found, diff.entries.end()) << name;
  return *found;
}

TEST(TraceDiffTest, ExplainsASlowerStepByASlowerKernelAndAnOpCalledTwice) {
  const trace::Trace before = training_trace(
      4, 1000,
      {{Category::kCpuOp, "aten::linear", 0, 100}, {Category::kKernel, "gemm_kernel", 10, 210}});
  const trace::Trace after = training_trace(4, 1300,
                                            {{Category::kCpuOp, "aten::linear", 0, 100},
                                             {Category::kCpuOp, "aten::linear", 200, 300},
                                             {Category::kKernel, "gemm_kernel", 10, 410}});
  const TraceDiff diff = diff_traces(before, after);

  EXPECT_EQ(diff.before.steps, 4u);
  EXPECT_DOUBLE_EQ(diff.before.median_ns, 1000.0);
  EXPECT_DOUBLE_EQ(diff.after.median_ns, 1300.0);

  const DiffEntry& kernel = entry_named(diff, "gemm_kernel");
  EXPECT_EQ(kernel.kind, DiffEntryKind::kKernel);
  EXPECT_DOUBLE_EQ(kernel.time_per_step_before_ns, 200.0);
  EXPECT_DOUBLE_EQ(kernel.time_per_step_after_ns, 400.0);

  const DiffEntry& op = entry_named(diff, "aten::linear");
  EXPECT_EQ(op.kind, DiffEntryKind::kOp);
  EXPECT_DOUBLE_EQ(op.calls_per_step_before, 1.0);
  EXPECT_DOUBLE_EQ(op.calls_per_step_after, 2.0);
}

TEST(TraceDiffTest, EntriesAreOrderedByTimeAddedPerStep) {
  const trace::Trace before = training_trace(2, 1000,
                                             {{Category::kKernel, "grows_a_little", 0, 100},
                                              {Category::kKernel, "shrinks", 100, 400},
                                              {Category::kKernel, "grows_a_lot", 400, 500}});
  const trace::Trace after = training_trace(2, 1000,
                                            {{Category::kKernel, "grows_a_little", 0, 150},
                                             {Category::kKernel, "shrinks", 150, 250},
                                             {Category::kKernel, "grows_a_lot", 250, 750}});
  const TraceDiff diff = diff_traces(before, after);
  ASSERT_EQ(diff.entries.size(), 3u);
  EXPECT_EQ(diff.entries[0].name, "grows_a_lot");
  EXPECT_EQ(diff.entries[1].name, "grows_a_little");
  EXPECT_EQ(diff.entries[2].name, "shrinks");
}

TEST(TraceDiffTest, NamesOnOneSideOnlyAreAddedOrRemoved) {
  const trace::Trace before = training_trace(1, 1000, {{Category::kKernel, "old_kernel", 0, 100}});
  const trace::Trace after = training_trace(1, 1000, {{Category::kKernel, "fused_kernel", 0, 50}});
  const TraceDiff diff = diff_traces(before, after);
  EXPECT_TRUE(entry_named(diff, "fused_kernel").added());
  EXPECT_TRUE(entry_named(diff, "old_kernel").removed());
}

TEST(TraceDiffTest, OpAndKernelOfTheSameNameStaySeparate) {
  const trace::Trace both = training_trace(
      1, 1000, {{Category::kCpuOp, "softmax", 0, 100}, {Category::kKernel, "softmax", 0, 50}});
  EXPECT_EQ(diff_traces(both, both).entries.size(), 2u);
}

TEST(TraceDiffTest, TraceWithoutStepsCountsAsOneStep) {
  trace::TraceBuilder builder;
  const std::uint32_t process = builder.add_process({.pid = 1});
  const std::uint32_t host =
      builder.add_track({.kind = trace::TrackKind::kHostThread, .process = process});
  trace::SpanRecord op;
  op.start = 0;
  op.end = 40;
  op.name = builder.intern("aten::mm");
  op.category = Category::kCpuOp;
  builder.add_span(host, op);
  const trace::Trace trace = builder.finalize();
  const StepDistribution steps = step_distribution(trace);
  EXPECT_EQ(steps.steps, 1u);
  EXPECT_FALSE(steps.from_step_spans);
  EXPECT_DOUBLE_EQ(diff_traces(trace, trace).entries[0].time_per_step_before_ns, 40.0);
}

TEST(TraceDiffTest, RealKinetoTraceAgainstItselfChangesNothing) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::read_chrome_json(path);
  const TraceDiff diff = diff_traces(trace, trace);
  // ProfilerStep#5 .. #10, 164.261 ms to 181.259 ms (from the file's "dur" fields).
  EXPECT_EQ(diff.before.steps, 6u);
  EXPECT_DOUBLE_EQ(diff.before.min_ns, 164261000.0);
  EXPECT_DOUBLE_EQ(diff.before.max_ns, 181259000.0);
  ASSERT_FALSE(diff.entries.empty());
  for (const DiffEntry& entry : diff.entries) {
    EXPECT_DOUBLE_EQ(entry.time_added_per_step_ns(), 0.0) << entry.name;
    EXPECT_FALSE(entry.added() || entry.removed()) << entry.name;
  }
}

TEST(TraceDiffTest, TwoDifferentRealKinetoTracesListAddedAndRemovedKernels) {
  const auto before_path = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  const auto after_path = tscope::testing::shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(before_path);
  TSCOPE_REQUIRE_FILE(after_path);
  const TraceDiff diff =
      diff_traces(trace::read_chrome_json(before_path), trace::read_chrome_json(after_path));
  EXPECT_FALSE(diff.before.from_step_spans);  // the GP100 trace marks no ProfilerStep
  EXPECT_EQ(diff.after.steps, 6u);
  // The GP100 run's elementwise add kernel (50 launches) does not occur in the ResNet50 run.
  const auto removed_add =
      std::find_if(diff.entries.begin(), diff.entries.end(), [](const DiffEntry& entry) {
        return entry.kind == DiffEntryKind::kKernel && entry.removed() &&
               entry.name.find("CUDAFunctor_add<float>") != std::string::npos &&
               entry.before.count == 50;
      });
  EXPECT_NE(removed_add, diff.entries.end());
  EXPECT_TRUE(std::any_of(diff.entries.begin(), diff.entries.end(),
                          [](const DiffEntry& e) { return e.added(); }));
  EXPECT_TRUE(std::is_sorted(diff.entries.begin(), diff.entries.end(),
                             [](const DiffEntry& a, const DiffEntry& b) {
                               return a.time_added_per_step_ns() > b.time_added_per_step_ns();
                             }));
}

}  // namespace
}  // namespace tscope::regress
