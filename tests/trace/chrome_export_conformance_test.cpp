// Our Chrome JSON export of every real trace in ../shared, and of a capture of our own, against
// the rules Perfetto's JSON importer applies (chrome_trace_rules.h), in both detail placements;
// and round trips Kineto -> .tsc -> Chrome JSON -> .tsc that keep every time to the nanosecond.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "chrome_trace_rules.h"
#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/trace/chrome_json_writer.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::trace {
namespace {

const std::vector<std::string> kSharedTraces = {
    "traces/kineto/hta_critical_path_alexnet_a100.json.gz",
    "traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz",
    "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz",
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz",
    "traces/kineto/tracelens_mi210_gpu_only.json.gz",
    "traces/multirank/sampled_rank-0.json.gz",
    "traces/multirank/sampled_rank-1.json.gz",
    "traces/chrome/speedscope_chrome65_simple_timeline.json",
    "traces/nsys/pipit_saxpy_mpi_cuda_perlmutter_a100.sqlite",
};

std::string file_stem(const std::string& relative) {
  std::string name = std::filesystem::path(relative).filename().string();
  return name.substr(0, name.find('.'));
}

std::string describe(const ChromeTraceReport& report) {
  std::string text;
  for (const std::string& violation : report.violations)
    text += "\n  " + violation;
  return text;
}

void expect_conformant_export(const Trace& trace, const std::string& name,
                              ChromeDetailPlacement detail) {
  const std::filesystem::path exported = tscope::testing::scratch_path(name + ".json");
  const ChromeJsonPart part{trace};
  write_chrome_json(std::span(&part, 1), exported, {detail});
  const ChromeTraceReport report = check_chrome_trace(exported);
  EXPECT_TRUE(report.violations.empty()) << name << describe(report);
  EXPECT_EQ(report.slices, trace.counts().spans) << name;
  EXPECT_EQ(report.flows_enclosing_launch, report.flows_with_launch) << name;
  std::filesystem::remove(exported);
}

// The checker itself, on a file that breaks each rule once: it must name every one.
TEST(ChromeTraceRules, NamesEveryRuleABrokenFileBreaks) {
  const std::filesystem::path broken = tscope::testing::scratch_path("broken.json");
  std::ofstream(broken) << R"json({"traceEvents": [
    {"ph": "X", "name": "textual pid", "pid": "Spans", "tid": 1, "ts": 0, "dur": 1},
    {"ph": "X", "name": "negative", "pid": 1, "tid": 1, "ts": 0, "dur": -1},
    {"ph": "X", "name": "parent", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
    {"ph": "X", "name": "crosser", "pid": 1, "tid": 1, "ts": 15, "dur": 10},
    {"ph": "B", "name": "open", "pid": 1, "tid": 2, "ts": 0},
    {"ph": "C", "name": "counter", "pid": 1, "tid": 1, "ts": 0, "args": {"value": "high"}},
    {"ph": "s", "cat": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 11},
    {"ph": "s", "cat": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 12},
    {"ph": "f", "cat": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 12, "bp": "e"},
    {"ph": "s", "cat": "ac2g", "id": 2, "pid": 9, "tid": 9, "ts": 11}
  ]})json";
  const ChromeTraceReport report = check_chrome_trace(broken);
  std::string all;
  for (const std::string& violation : report.violations)
    all += violation + "\n";
  for (const char* rule :
       {"numeric pid and tid", "X dur >= 0", "children within parents", "B/E balanced",
        "numeric counter args", "unique flow ids", "every flow bound to a slice"}) {
    EXPECT_NE(all.find(rule), std::string::npos) << rule << " not reported in:\n" << all;
  }
  std::filesystem::remove(broken);
}

class SharedTraceExport : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedTraceExport, FollowsPerfettosImporterRulesWithDetailInArgs) {
  const auto path = testing::shared_data_path(GetParam());
  TSCOPE_REQUIRE_FILE(path);
  expect_conformant_export(load_trace(path), file_stem(GetParam()), ChromeDetailPlacement::kArgs);
}

TEST_P(SharedTraceExport, FollowsPerfettosImporterRulesWithDetailSeparate) {
  const auto path = testing::shared_data_path(GetParam());
  TSCOPE_REQUIRE_FILE(path);
  expect_conformant_export(load_trace(path), file_stem(GetParam()) + "_separate",
                           ChromeDetailPlacement::kSeparate);
}

// Every timed event of a trace as (track name, kind, start, end), sorted, so traces whose tracks
// were numbered differently compare.
using TimedEvent = std::tuple<std::string, int, TimeNs, TimeNs>;
std::vector<TimedEvent> timed_events(const Trace& trace) {
  std::vector<TimedEvent> events;
  for (const Track& track : trace.tracks()) {
    const std::string name(trace.string(track.info().name));
    const SpanColumns& spans = track.spans();
    for (std::size_t span = 0; span < spans.size(); ++span) {
      events.emplace_back(name, 0, spans.start[span], spans.end(span));
    }
    for (const TimeNs time : track.instants().time)
      events.emplace_back(name, 1, time, time);
    for (const TimeNs time : track.counters().time)
      events.emplace_back(name, 2, time, time);
    for (const TimeNs time : track.memory().time)
      events.emplace_back(name, 3, time, time);
  }
  std::sort(events.begin(), events.end());
  return events;
}

TEST_P(SharedTraceExport, RoundTripThroughTscAndChromeJsonKeepsEveryNanosecond) {
  const auto path = testing::shared_data_path(GetParam());
  TSCOPE_REQUIRE_FILE(path);
  const std::string stem = file_stem(GetParam());
  const Trace original = load_trace(path);
  save_trace(original, tscope::testing::scratch_path(stem + ".tsc"));
  const Trace native = load_trace(tscope::testing::scratch_path(stem + ".tsc"));
  save_trace(native, tscope::testing::scratch_path(stem + ".json"));
  const Trace exported = load_trace(tscope::testing::scratch_path(stem + ".json"));
  save_trace(exported, tscope::testing::scratch_path(stem + "_again.tsc"));
  const Trace again = load_trace(tscope::testing::scratch_path(stem + "_again.tsc"));
  EXPECT_EQ(timed_events(again), timed_events(original));
  EXPECT_EQ(again.begin_time(), original.begin_time());
  for (const char* name : {".tsc", ".json", "_again.tsc"}) {
    std::filesystem::remove(tscope::testing::scratch_path(stem + name));
  }
}

INSTANTIATE_TEST_SUITE_P(RealTraces, SharedTraceExport, ::testing::ValuesIn(kSharedTraces),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = file_stem(param.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A short training run of our own example, recorded by our profiler.
TEST(OwnCaptureExport, FollowsPerfettosImporterRules) {
  TSCOPE_REQUIRE_FILE(testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz");
  const std::filesystem::path recorded = tscope::testing::scratch_path("own_capture.tsc");
  const testing::CommandResult result =
      testing::run_command(testing::quoted(testing::built_program("train_fashion_mnist")) +
                           " --data-dir " + testing::quoted(testing::fashion_mnist_dir()) +
                           " --steps 3 --trace " + testing::quoted(recorded));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const Trace trace = load_trace(recorded);
  ASSERT_GT(trace.counts().spans, 0u);
  expect_conformant_export(trace, "own_capture", ChromeDetailPlacement::kArgs);
  expect_conformant_export(trace, "own_capture_separate", ChromeDetailPlacement::kSeparate);
  std::filesystem::remove(recorded);
}

}  // namespace
}  // namespace tscope::trace
