// Imports every real Chrome trace under ../shared/data/traces and checks exact counts. The
// expected figures were computed independently of this reader, with python3's json and gzip
// modules (flows bound to the innermost enclosing slice, closed intervals, as Chrome does).

#include "tscope/trace/chrome_json_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <tuple>
#include <utility>

#include "test_data.h"
#include "tscope/trace/chrome_json_input.h"

namespace tscope::trace {
namespace {

using tscope::testing::shared_data_path;

struct CopyKey {
  CopyDirection direction;
  MemoryKind source;
  MemoryKind destination;
  auto operator<=>(const CopyKey&) const = default;
};

// What a trace holds, counted through the public model API.
struct Census {
  explicit Census(const Trace& trace) {
    const TraceCounts counts = trace.counts();
    for (int category = 0; category < kCategoryCount; ++category) {
      spans_by_category[static_cast<Category>(category)] = counts.spans_by_category[category];
    }
    spans = counts.spans;
    instants = counts.instants;
    memory_events = counts.memory_events;
    for (const Track& track : trace.tracks()) {
      for (std::size_t span = 0; span < track.spans().size(); ++span) {
        const std::uint32_t detail = track.spans().detail[span];
        if (track.spans().category[span] != Category::kMemcpy || detail == kNoIndex) continue;
        const CopyInfo& copy = trace.copies()[trace.span_details()[detail].copy];
        const CopyKey key{copy.direction, copy.source, copy.destination};
        ++copies[key];
        copy_bytes[key] += copy.bytes;
      }
    }
    for (const Flow& flow : trace.flows())
      ++flows[flow.kind];
  }

  std::uint64_t category(Category category) const { return spans_by_category.at(category); }
  // Checks the span count of each listed category.
  void expect_spans(std::initializer_list<std::pair<Category, std::uint64_t>> expected) const {
    for (const auto& [listed, count] : expected) {
      SCOPED_TRACE(to_string(listed));
      EXPECT_EQ(category(listed), count);
    }
  }
  std::uint64_t flow_count(FlowKind kind) const {
    return flows.contains(kind) ? flows.at(kind) : 0;
  }

  std::uint64_t spans = 0;
  std::uint64_t instants = 0;
  std::uint64_t memory_events = 0;
  std::map<Category, std::uint64_t> spans_by_category;
  std::map<CopyKey, std::uint64_t> copies;
  std::map<CopyKey, std::uint64_t> copy_bytes;
  std::map<FlowKind, std::uint64_t> flows;
};

constexpr CopyKey kHtoDPageable{CopyDirection::kHostToDevice, MemoryKind::kPageable,
                                MemoryKind::kDevice};
constexpr CopyKey kHtoDPinned{CopyDirection::kHostToDevice, MemoryKind::kPinned,
                              MemoryKind::kDevice};
constexpr CopyKey kDtoHPageable{CopyDirection::kDeviceToHost, MemoryKind::kDevice,
                                MemoryKind::kPageable};
constexpr CopyKey kDtoD{CopyDirection::kDeviceToDevice, MemoryKind::kDevice, MemoryKind::kDevice};

TEST(ChromeJsonReaderTest, AlexnetA100KinetoTraceHasExactCounts) {
  const auto path = shared_data_path("traces/kineto/hta_critical_path_alexnet_a100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Census census(read_chrome_json(path));
  census.expect_spans({{Category::kKernel, 79},
                       {Category::kMemset, 3},
                       {Category::kRuntimeApi, 361},
                       {Category::kSynchronization, 41},
                       {Category::kCpuOp, 359},
                       {Category::kUserAnnotation, 8}});
  EXPECT_EQ(census.copies, (std::map<CopyKey, std::uint64_t>{{kHtoDPageable, 16}}));
  EXPECT_EQ(census.copy_bytes.at(kHtoDPageable), 244'403'360u);
  // 98 launches of kernels, copies and memsets plus 41 of stream synchronizations.
  EXPECT_EQ(census.flow_count(FlowKind::kLaunchToKernel), 139u);
  EXPECT_EQ(census.memory_events, 0u);
  EXPECT_EQ(census.category(Category::kStep), 0u);
}

TEST(ChromeJsonReaderTest, NcclA100KinetoTraceHasExactCounts) {
  const auto path = shared_data_path("traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Census census(read_chrome_json(path));
  census.expect_spans({{Category::kKernel, 2700},
                       {Category::kMemset, 114},
                       {Category::kRuntimeApi, 8740},
                       {Category::kCpuOp, 14346},
                       {Category::kUserAnnotation, 39},
                       {Category::kGpuUserAnnotation, 30},
                       {Category::kStep, 3}});
  EXPECT_EQ(census.copies, (std::map<CopyKey, std::uint64_t>{{kDtoD, 960}}));
  EXPECT_EQ(census.copy_bytes.at(kDtoD), 307'323'096u);
  EXPECT_EQ(census.flow_count(FlowKind::kLaunchToKernel), 3774u);
  EXPECT_EQ(census.flow_count(FlowKind::kForwardBackward), 543u);  // fwdbwd
}

TEST(ChromeJsonReaderTest, Gp100StepTraceHasExactCounts) {
  const auto path =
      shared_data_path("traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Census census(read_chrome_json(path));
  census.expect_spans({{Category::kKernel, 130},
                       {Category::kRuntimeApi, 180},
                       {Category::kCpuOp, 643},
                       {Category::kUserAnnotation, 10},
                       {Category::kGpuUserAnnotation, 10}});
  EXPECT_EQ(census.copies, (std::map<CopyKey, std::uint64_t>{{kHtoDPageable, 10}}));
  EXPECT_EQ(census.copy_bytes.at(kHtoDPageable), 60u);
  EXPECT_EQ(census.flow_count(FlowKind::kLaunchToKernel), 140u);
}

TEST(ChromeJsonReaderTest, Legacy2021SchemaResnetTraceHasExactCounts) {
  const auto path = shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Trace trace = read_chrome_json(path);
  const Census census(trace);
  census.expect_spans({{Category::kKernel, 8772},
                       {Category::kMemset, 312},
                       {Category::kRuntimeApi, 11923},
                       {Category::kCpuOp, 23640},
                       {Category::kStep, 6}});
  EXPECT_EQ(census.copies, (std::map<CopyKey, std::uint64_t>{{kHtoDPageable, 12}}));
  EXPECT_EQ(census.copy_bytes.at(kHtoDPageable), 115'607'040u);
  EXPECT_EQ(census.flow_count(FlowKind::kLaunchToKernel), 9096u);
  EXPECT_EQ(census.memory_events, 12838u);
}

TEST(ChromeJsonReaderTest, LegacyMemoryInstantsBecomeAllocsAndFreesPerDevice) {
  const auto path = shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Trace trace = read_chrome_json(path);
  std::map<std::int32_t, std::uint64_t> by_device;
  std::map<MemoryAction, std::uint64_t> by_action;
  for (const Track& track : trace.tracks()) {
    for (std::size_t event = 0; event < track.memory().size(); ++event) {
      ++by_device[track.memory().device(event)];
      ++by_action[track.memory().action(event)];
    }
  }
  EXPECT_EQ(by_device, (std::map<std::int32_t, std::uint64_t>{{-1, 4618}, {0, 8220}}));
  EXPECT_EQ(by_action[MemoryAction::kAlloc], 6420u);
  EXPECT_EQ(by_action[MemoryAction::kFree], 6418u);
}

TEST(ChromeJsonReaderTest, RocmGpuOnlyTraceHasExactCounts) {
  const auto path = shared_data_path("traces/kineto/tracelens_mi210_gpu_only.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Census census(read_chrome_json(path));
  census.expect_spans(
      {{Category::kKernel, 562}, {Category::kRuntimeApi, 631}, {Category::kCpuOp, 0}});
  EXPECT_TRUE(census.copies.empty());
  EXPECT_EQ(census.flow_count(FlowKind::kLaunchToKernel), 562u);
}

TEST(ChromeJsonReaderTest, MultirankPairHasExactCountsPerRank) {
  const auto rank0 = shared_data_path("traces/multirank/sampled_rank-0.json.gz");
  const auto rank1 = shared_data_path("traces/multirank/sampled_rank-1.json.gz");
  TSCOPE_REQUIRE_FILE(rank0);
  TSCOPE_REQUIRE_FILE(rank1);
  const Census first(read_chrome_json(rank0));
  first.expect_spans({{Category::kKernel, 1154},
                      {Category::kMemset, 10},
                      {Category::kRuntimeApi, 1204},
                      {Category::kCpuOp, 2329},
                      {Category::kUserAnnotation, 71},
                      {Category::kStep, 2}});
  EXPECT_EQ(first.copies,
            (std::map<CopyKey, std::uint64_t>{
                {kHtoDPageable, 16}, {kHtoDPinned, 8}, {kDtoHPageable, 8}, {kDtoD, 8}}));
  EXPECT_EQ(first.copy_bytes.at(kHtoDPinned), 4'849'696u);
  // No flow events in these files: launches are linked through their correlation ids.
  EXPECT_EQ(first.flow_count(FlowKind::kLaunchToKernel), 1204u);

  const Census second(read_chrome_json(rank1));
  second.expect_spans({{Category::kKernel, 1104},
                       {Category::kRuntimeApi, 1154},
                       {Category::kCpuOp, 2302},
                       {Category::kStep, 2}});
  EXPECT_EQ(second.copy_bytes.at(kDtoD), 3'298'965'512u);
  EXPECT_EQ(second.flow_count(FlowKind::kLaunchToKernel), 1154u);
}

TEST(ChromeJsonReaderTest, RankComesFromDistributedInfo) {
  const auto path = shared_data_path("traces/multirank/sampled_rank-1.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Trace trace = read_chrome_json(path);
  const auto host = std::find_if(trace.processes().begin(), trace.processes().end(),
                                 [](const Process& process) { return process.pid == 4045; });
  ASSERT_NE(host, trace.processes().end());
  EXPECT_EQ(host->rank, 1);
  EXPECT_EQ(trace.string(host->name), "pyper:trainer:0:1");
}

TEST(ChromeJsonReaderTest, ChromeTimelineArrayMatchesBeginEndAndAsyncPairs) {
  const auto path = shared_data_path("traces/chrome/speedscope_chrome65_simple_timeline.json");
  TSCOPE_REQUIRE_FILE(path);
  const Census census(read_chrome_json(path));
  // 2253 complete events, 437 B/E pairs matched per thread in time order, 27 async pairs.
  EXPECT_EQ(census.spans, 2253u + 437u + 27u);
  EXPECT_EQ(census.instants, 263u);
  EXPECT_EQ(census.category(Category::kOther), census.spans);
}

TEST(ChromeJsonReaderTest, KernelRowsUseDeviceAsPidAndStreamAsTid) {
  const auto path = shared_data_path("traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Trace trace = read_chrome_json(path);
  const auto stream7 =
      std::find_if(trace.tracks().begin(), trace.tracks().end(), [](const Track& t) {
        return t.info().kind == TrackKind::kGpuStream && t.info().stream == 7;
      });
  ASSERT_NE(stream7, trace.tracks().end());
  EXPECT_EQ(stream7->info().device, 0);
  EXPECT_EQ(trace.string(stream7->info().name), "stream 7 ");
  EXPECT_EQ(trace.string(trace.processes()[stream7->info().process].name), "GPU 0");
}

TEST(ChromeJsonReaderTest, KernelArgsFillLaunchGeometryAndKeepNanosecondDecimals) {
  const auto path = shared_data_path("traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Trace trace = read_chrome_json(path);
  // The earliest kernel: "ts": 4458676422880.181 plus baseTimeNanoseconds 1711964646000000000.
  std::optional<SpanRecord> first;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const SpanColumns& spans = trace.track(track).spans();
    for (std::uint32_t span = 0; span < spans.size(); ++span) {
      if (spans.category[span] != Category::kKernel) continue;
      if (!first || spans.start[span] < first->start) first = trace.span_record(track, span);
    }
  }
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->start, 1'716'423'322'422'880'181);
  EXPECT_EQ(first->end - first->start, 3'744);
  ASSERT_TRUE(first->kernel.has_value());
  EXPECT_EQ(first->kernel->grid, (std::array<std::uint32_t, 3>{4, 106, 1}));
  EXPECT_EQ(first->kernel->block, (std::array<std::uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(first->kernel->registers_per_thread, 30u);
  EXPECT_EQ(first->kernel->stream, 7);
  EXPECT_EQ(first->correlation_id, 19812u);
  EXPECT_EQ(first->external_correlation_id, 112u);
}

TEST(ChromeJsonReaderTest, EpochMicrosecondsWithNanosecondDecimalsKeepEveryNanosecond) {
  // Kineto's nanosecond-resolution traces: µs since the epoch with ns decimals, 61 bits of ns
  // where a double holds 53 (so it would round to multiples of 256 ns).
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "parent", "pid": 1, "tid": 1, "ts": 1700000000123456.789, "dur": 10.001},
    {"ph": "X", "cat": "cpu_op", "name": "child", "pid": 1, "tid": 1, "ts": 1700000000123456.791, "dur": 9.999},
    {"ph": "i", "s": "t", "name": "mark", "pid": 1, "tid": 1, "ts": 1.700000000123457e15}
  ]})";
  const Trace trace = read_chrome_json(ChromeJsonInput::from_bytes(json, "epoch.json"));
  const SpanColumns& spans = trace.track(0).spans();
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans.start[0], 1'700'000'000'123'456'789);
  EXPECT_EQ(spans.end(0), 1'700'000'000'123'466'790);
  EXPECT_EQ(spans.start[1], 1'700'000'000'123'456'791);
  EXPECT_EQ(spans.end(1), 1'700'000'000'123'466'790);  // ends with its parent, not past it
  EXPECT_EQ(trace.track(0).instants().time[0], 1'700'000'000'123'457'000);
}

// Older Kineto traces number "External id"s so that a kernel's can equal an unrelated op's (the
// AlexNet trace: every kernel's External id is its correlation id); the op that ran a kernel is
// the one around the call that launched it.
TEST(ChromeJsonReaderTest, OpToKernelFlowsStartAtTheOpEnclosingTheLaunch) {
  for (const char* name :
       {"traces/kineto/hta_critical_path_alexnet_a100.json.gz",
        "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz",
        "traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz"}) {
    const auto path = shared_data_path(name);
    TSCOPE_REQUIRE_FILE(path);
    const Trace trace = read_chrome_json(path);
    std::map<std::uint64_t, EventRef> launch_of;
    for (const Flow& flow : trace.flows()) {
      if (flow.kind == FlowKind::kLaunchToKernel) launch_of[flow.to.pack()] = flow.from;
    }
    const auto interval = [&](EventRef ref) {
      const SpanColumns& spans = trace.track(ref.track).spans();
      return std::make_pair(spans.start[ref.index], spans.end(ref.index));
    };
    std::size_t op_flows = 0;
    for (const Flow& flow : trace.flows()) {
      EXPECT_LE(interval(flow.from).first, interval(flow.to).first) << name;
      if (flow.kind != FlowKind::kOpToKernel) continue;
      ++op_flows;
      const auto launch = launch_of.find(flow.to.pack());
      ASSERT_NE(launch, launch_of.end()) << name;
      EXPECT_LE(interval(flow.from).first, interval(launch->second).first) << name;
      EXPECT_GE(interval(flow.from).second, interval(launch->second).second) << name;
    }
    EXPECT_GT(op_flows + std::string_view(name).ends_with("alexnet_a100.json.gz"), 0u) << name;
  }
}

}  // namespace
}  // namespace tscope::trace
