#include "tscope/trace/trace_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sample_trace.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/time_range.h"

namespace tscope::trace {
namespace {

std::vector<std::uint16_t> depths(const SpanColumns& spans) {
  return {spans.depth.begin(), spans.depth.end()};
}

class TraceBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    process_ = builder_.add_process({1, builder_.intern("proc"), kEmptyString, -1, 0});
    host_ = add_track(TrackKind::kHostThread, "thread");
  }

  std::uint32_t add_track(TrackKind kind, std::string_view name) {
    return builder_.add_track({kind, builder_.intern(name), process_, 1, 0, 1, 0});
  }

  EventRef span(std::uint32_t track, TimeNs start, TimeNs end, std::string_view name,
                Category category = Category::kOther, std::uint32_t correlation = 0,
                std::uint64_t external = 0) {
    SpanRecord record = testing::span_record(start, end, builder_.intern(name), category);
    record.correlation_id = correlation;
    record.external_correlation_id = external;
    return builder_.add_span(track, record);
  }

  struct HostSpan {
    TimeNs start;
    TimeNs end;
    std::string_view name;
  };

  // Adds the spans to the host thread's track, in the order given, and finalizes the trace.
  Trace finalize_with_host_spans(std::initializer_list<HostSpan> spans) {
    for (const HostSpan& host_span : spans)
      span(host_, host_span.start, host_span.end, host_span.name);
    return builder_.finalize();
  }

  static std::vector<std::string_view> names_at_depth(const Trace& trace, std::uint32_t track,
                                                      std::size_t depth) {
    std::vector<std::string_view> names;
    for (const std::uint32_t index : trace.track(track).spans_at_depth(depth)) {
      names.push_back(trace.string(trace.track(track).spans().name[index]));
    }
    return names;
  }

  TraceBuilder builder_;
  std::uint32_t process_ = 0;
  std::uint32_t host_ = 0;
};

TEST_F(TraceBuilderTest, SortsSpansByStartWithEnclosingSpanFirst) {
  const Trace trace =
      finalize_with_host_spans({{50, 60, "late"}, {10, 20, "inner"}, {10, 40, "outer"}});
  const SpanColumns& spans = trace.track(host_).spans();
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(trace.string(spans.name[0]), "outer");
  EXPECT_EQ(trace.string(spans.name[1]), "inner");
  EXPECT_EQ(trace.string(spans.name[2]), "late");
}

TEST_F(TraceBuilderTest, DepthFollowsContainment) {
  const Trace trace = finalize_with_host_spans({{0, 100, "step"},
                                                {10, 50, "forward"},
                                                {20, 30, "matmul"},
                                                {60, 90, "backward"},
                                                {200, 300, "next step"}});
  const SpanColumns& spans = trace.track(host_).spans();
  EXPECT_EQ(depths(spans), (std::vector<std::uint16_t>{0, 1, 2, 1, 0}));
  EXPECT_EQ(trace.track(host_).depth_count(), 3u);
}

TEST_F(TraceBuilderTest, SpanTouchingItsPredecessorsEndIsItsSibling) {
  const Trace trace = finalize_with_host_spans({{0, 10, "first"}, {10, 20, "second"}});
  EXPECT_EQ(depths(trace.track(host_).spans()), (std::vector<std::uint16_t>{0, 0}));
}

// Spans store their duration, in 32 bits while every span of the track fits them: a longer one
// widens the column, and each end comes back exactly, the widest span a trace allows included.
TEST_F(TraceBuilderTest, EveryEndComesBackExactlyWhateverTheDuration) {
  const std::vector<std::pair<TimeNs, TimeNs>> spans{{0, 7},
                                                     {10, 10},
                                                     {20, 20 + (TimeNs{1} << 32) - 1},
                                                     {30, 30 + (TimeNs{1} << 32)},
                                                     {-kMaxAbsTimeNs, kMaxAbsTimeNs}};
  for (std::size_t i = 0; i < spans.size(); ++i)
    span(host_, spans[i].first, spans[i].second, "span " + std::to_string(i));
  const Trace trace = builder_.finalize();
  const SpanColumns& columns = trace.track(host_).spans();
  ASSERT_EQ(columns.size(), spans.size());
  EXPECT_TRUE(columns.duration.wide());
  for (std::size_t span = 0; span < columns.size(); ++span) {
    const auto expected = std::find_if(spans.begin(), spans.end(), [&](const auto& each) {
      return each.first == columns.start[span];
    });
    ASSERT_NE(expected, spans.end());
    EXPECT_EQ(columns.end(span), expected->second) << "span starting at " << expected->first;
  }
}

TEST_F(TraceBuilderTest, ShiftedTimesSaturateEachEndOnItsOwn) {
  constexpr TimeNs kLatest = std::numeric_limits<TimeNs>::max();
  constexpr TimeNs kOffset = kLatest - kMaxAbsTimeNs + 1;
  span(host_, 100, kMaxAbsTimeNs, "from early on");
  span(host_, kMaxAbsTimeNs - 10, kMaxAbsTimeNs, "near the limit");
  builder_.shift_times(kOffset);
  const Trace trace = builder_.finalize();
  const SpanColumns& columns = trace.track(host_).spans();
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns.start[0], 100 + kOffset);
  EXPECT_EQ(columns.start[1], kLatest - 9);
  EXPECT_EQ(columns.end(0), kLatest);
  EXPECT_EQ(columns.end(1), kLatest);
}

TEST_F(TraceBuilderTest, PartiallyOverlappingSpanGoesOneLevelDeeper) {
  const Trace trace = finalize_with_host_spans({{0, 100, "a"}, {50, 150, "b"}, {160, 170, "c"}});
  EXPECT_EQ(depths(trace.track(host_).spans()), (std::vector<std::uint16_t>{0, 1, 0}));
  EXPECT_EQ(trace.end_time(), 170);
}

TEST_F(TraceBuilderTest, GroupsSpansByDepthInTimeOrder) {
  const Trace trace = finalize_with_host_spans(
      {{0, 100, "a"}, {10, 20, "a1"}, {30, 40, "a2"}, {200, 300, "b"}, {210, 220, "b1"}});
  EXPECT_EQ(names_at_depth(trace, host_, 0), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(names_at_depth(trace, host_, 1), (std::vector<std::string_view>{"a1", "a2", "b1"}));
  EXPECT_TRUE(trace.track(host_).spans_at_depth(2).empty());
}

TEST_F(TraceBuilderTest, FindsFirstSpanEndingAfterTimePerDepth) {
  const Trace trace =
      finalize_with_host_spans({{0, 100, "a"}, {10, 20, "a1"}, {30, 40, "a2"}, {50, 60, "a3"}});
  const Track& track = trace.track(host_);
  EXPECT_EQ(track.first_span_ending_after(1, 0), 0u);
  EXPECT_EQ(track.first_span_ending_after(1, 20), 1u);  // a1 ends at 20: not after it
  EXPECT_EQ(track.first_span_ending_after(1, 35), 1u);
  EXPECT_EQ(track.first_span_ending_after(1, 60), 3u);
  EXPECT_EQ(track.first_span_ending_after(0, 99), 0u);
  EXPECT_EQ(track.first_span_ending_after(7, 0), 0u);
}

TEST_F(TraceBuilderTest, FindsInnermostSpanAtTime) {
  const Trace trace = finalize_with_host_spans({{0, 100, "a"}, {10, 50, "b"}, {20, 30, "c"}});
  const Track& track = trace.track(host_);
  EXPECT_EQ(trace.string(track.spans().name[track.innermost_span_at(25)]), "c");
  EXPECT_EQ(trace.string(track.spans().name[track.innermost_span_at(40)]), "b");
  EXPECT_EQ(trace.string(track.spans().name[track.innermost_span_at(99)]), "a");
  EXPECT_EQ(track.innermost_span_at(100), kNoIndex);
}

TEST_F(TraceBuilderTest, FindsFirstSpanStartingAtTime) {
  const Trace trace = finalize_with_host_spans({{10, 20, "a"}, {30, 40, "b"}});
  EXPECT_EQ(trace.track(host_).first_span_starting_at(0), 0u);
  EXPECT_EQ(trace.track(host_).first_span_starting_at(11), 1u);
  EXPECT_EQ(trace.track(host_).first_span_starting_at(31), 2u);
}

TEST_F(TraceBuilderTest, ExplicitFlowFollowsItsEventsThroughSorting) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  span(stream, 500, 600, "later kernel");
  const EventRef kernel = span(stream, 100, 200, "kernel");
  span(host_, 90, 95, "later launch");
  const EventRef launch = span(host_, 10, 20, "launch");
  builder_.add_flow({FlowKind::kOther, 1, launch, kernel});
  const Trace trace = builder_.finalize({.link_correlated_events = false});
  ASSERT_EQ(trace.flows().size(), 1u);
  EXPECT_EQ(trace.flows()[0].from, (EventRef{EventKind::kSpan, host_, 0}));
  EXPECT_EQ(trace.flows()[0].to, (EventRef{EventKind::kSpan, stream, 0}));
}

TEST_F(TraceBuilderTest, LinksLaunchToKernelByCorrelationId) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  span(host_, 10, 20, "cudaLaunchKernel", Category::kRuntimeApi, 7);
  span(host_, 30, 40, "cudaMemcpyAsync", Category::kRuntimeApi, 8);
  span(stream, 50, 60, "Memcpy HtoD", Category::kMemcpy, 8);
  span(stream, 25, 45, "gemm", Category::kKernel, 7);
  const Trace trace = builder_.finalize();
  ASSERT_EQ(trace.flows().size(), 2u);
  EXPECT_EQ(trace.flows()[0].kind, FlowKind::kLaunchToKernel);
  EXPECT_EQ(trace.flows()[0].id, 7u);
  EXPECT_EQ(trace.flows()[0].from, (EventRef{EventKind::kSpan, host_, 0}));
  EXPECT_EQ(trace.flows()[0].to, (EventRef{EventKind::kSpan, stream, 0}));
  EXPECT_EQ(trace.flows()[1].id, 8u);
  EXPECT_EQ(trace.flows()[1].to, (EventRef{EventKind::kSpan, stream, 1}));
}

TEST_F(TraceBuilderTest, LinksEveryKernelWhateverTheOrderOfItsCorrelationIds) {
  // Kernels on a stream mostly run in launch order, ids growing; here they come in every order
  // (runs up and down, jumps over many ids), and from two launching threads.
  const std::uint32_t other_host = add_track(TrackKind::kHostThread, "other thread");
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  constexpr std::uint32_t kLaunches = 300;
  for (std::uint32_t id = 1; id <= kLaunches; ++id) {
    const TimeNs start = TimeNs{id} * 10;
    span(id % 3 == 0 ? other_host : host_, start, start + 5, "cudaLaunchKernel",
         Category::kRuntimeApi, id);
  }
  std::vector<std::uint32_t> kernel_ids;
  for (std::uint32_t id = kLaunches; id > 200; --id)
    kernel_ids.push_back(id);
  for (std::uint32_t id = 1; id <= 200; id += 7)
    kernel_ids.push_back(id);
  for (std::uint32_t id = 2; id <= 200; ++id) {
    if (id % 7 != 1) kernel_ids.push_back(id);
  }
  kernel_ids.push_back(kLaunches + 5);  // no launch
  for (std::size_t kernel = 0; kernel < kernel_ids.size(); ++kernel) {
    const auto start = static_cast<TimeNs>(10'000 + kernel * 10);
    span(stream, start, start + 5, "gemm", Category::kKernel, kernel_ids[kernel]);
  }
  const Trace trace = builder_.finalize();
  ASSERT_EQ(trace.flows().size(), std::size_t{kLaunches});
  for (const Flow& flow : trace.flows()) {
    EXPECT_EQ(flow.kind, FlowKind::kLaunchToKernel);
    EXPECT_EQ(kernel_ids.at(flow.to.index), flow.id);
    const Track& launches = trace.track(flow.from.track);
    EXPECT_EQ(launches.spans().correlation_id(flow.from.index), flow.id);
  }
}

TEST_F(TraceBuilderTest, LinksOpToKernelByExternalCorrelationId) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  span(host_, 0, 100, "aten::mm", Category::kCpuOp, 0, 42);
  span(stream, 50, 60, "gemm", Category::kKernel, 0, 42);
  const Trace trace = builder_.finalize();
  ASSERT_EQ(trace.flows().size(), 1u);
  EXPECT_EQ(trace.flows()[0].kind, FlowKind::kOpToKernel);
  EXPECT_EQ(trace.flows()[0].id, 42u);
}

TEST_F(TraceBuilderTest, KernelWithoutMatchingLaunchHasNoFlow) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  span(host_, 10, 20, "cudaLaunchKernel", Category::kRuntimeApi, 7);
  span(stream, 25, 45, "gemm", Category::kKernel, 9);
  EXPECT_TRUE(builder_.finalize().flows().empty());
}

TEST_F(TraceBuilderTest, ExplicitAndCorrelatedFlowBetweenSameEventsIsKeptOnce) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  const EventRef launch = span(host_, 10, 20, "cudaLaunchKernel", Category::kRuntimeApi, 7);
  const EventRef kernel = span(stream, 25, 45, "gemm", Category::kKernel, 7);
  builder_.add_flow({FlowKind::kLaunchToKernel, 7, launch, kernel});
  EXPECT_EQ(builder_.finalize().flows().size(), 1u);
}

TEST_F(TraceBuilderTest, PairsFlowEndpointsBoundByTime) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  span(host_, 0, 100, "outer");
  span(host_, 10, 20, "launch");
  span(stream, 30, 40, "kernel");
  builder_.add_flow_endpoint(
      {FlowKind::kLaunchToKernel, 5, true, host_, 15, FlowEndpoint::Binding::kEnclosingSpan});
  builder_.add_flow_endpoint(
      {FlowKind::kLaunchToKernel, 5, false, stream, 25, FlowEndpoint::Binding::kNextSpan});
  const Trace trace = builder_.finalize();
  ASSERT_EQ(trace.flows().size(), 1u);
  EXPECT_EQ(trace.flows()[0].from, (EventRef{EventKind::kSpan, host_, 1}));
  EXPECT_EQ(trace.flows()[0].to, (EventRef{EventKind::kSpan, stream, 0}));
}

TEST_F(TraceBuilderTest, UnpairedFlowEndpointIsDropped) {
  span(host_, 10, 20, "launch");
  builder_.add_flow_endpoint(
      {FlowKind::kOther, 5, true, host_, 15, FlowEndpoint::Binding::kEnclosingSpan});
  EXPECT_TRUE(builder_.finalize().flows().empty());
}

TEST_F(TraceBuilderTest, SortsInstantsCountersAndMemoryEventsByTime) {
  builder_.add_instant(host_, {30, builder_.intern("b"), Category::kOther, {}});
  builder_.add_instant(host_, {10, builder_.intern("a"), Category::kOther, {}});
  builder_.add_counter_sample(host_, 20, 2.0);
  builder_.add_counter_sample(host_, 10, 1.0);
  builder_.add_memory_event(host_, {9, MemoryAction::kFree, 1, 2, -1, 0, 0, 0, 0});
  builder_.add_memory_event(host_, {3, MemoryAction::kAlloc, 1, 2, -1, 0, 0, 2, 2});
  const Trace trace = builder_.finalize();
  const Track& track = trace.track(host_);
  const TimeColumn& times = track.instants().time;
  EXPECT_EQ(std::vector<TimeNs>(times.begin(), times.end()), (std::vector<TimeNs>{10, 30}));
  EXPECT_EQ(track.counters().value, (std::vector<double>{1.0, 2.0}));
  std::vector<MemoryAction> actions;
  actions.reserve(track.memory().size());
  for (std::size_t event = 0; event < track.memory().size(); ++event)
    actions.push_back(track.memory().action(event));
  EXPECT_EQ(actions, (std::vector<MemoryAction>{MemoryAction::kAlloc, MemoryAction::kFree}));
}

TEST_F(TraceBuilderTest, SpanDetailLivesInSideTables) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  SpanRecord record = testing::span_record(0, 10, builder_.intern("k"), Category::kKernel);
  record.kernel = KernelInfo{{1, 2, 3}, {4, 5, 6}, 32, 0, 0, 0, 1};
  builder_.add_span(stream, record);
  span(stream, 20, 30, "plain");
  const Trace trace = builder_.finalize();
  EXPECT_EQ(trace.kernels().size(), 1u);
  EXPECT_EQ(trace.span_record(stream, 0), record);
  EXPECT_EQ(trace.span_detail(stream, 1), nullptr);
}

TEST_F(TraceBuilderTest, SpansWithEqualDetailShareOneSideTableEntry) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  SpanRecord record = testing::span_record(0, 10, builder_.intern("k"), Category::kKernel);
  record.kernel = KernelInfo{{1, 2, 3}, {4, 5, 6}, 32, 0, 0, 0, 1};
  record.op = OpInfo{{{2, 3}, {3}}, 12, 24, 8, {}, {}};
  builder_.add_span(stream, record);
  SpanRecord other_op = record;
  other_op.start = 40;
  other_op.end = 50;
  other_op.op->input_shapes = {{4, 3}, {3}};
  builder_.add_span(stream, other_op);
  SpanRecord repeat = record;
  repeat.start = 20;
  repeat.end = 30;
  builder_.add_span(stream, repeat);
  const Trace trace = builder_.finalize();
  EXPECT_EQ(trace.kernels().size(), 1u);
  EXPECT_EQ(trace.op_details().size(), 2u);
  EXPECT_EQ(trace.span_detail(stream, 0)->op, trace.span_detail(stream, 1)->op);
  EXPECT_NE(trace.span_detail(stream, 1)->op, trace.span_detail(stream, 2)->op);
  EXPECT_EQ(trace.span_record(stream, 1), repeat);
  EXPECT_EQ(trace.span_record(stream, 2), other_op);
}

TEST_F(TraceBuilderTest, CorrelationIdsFillAColumnOnlyOnTracksWhereSomeSpanHasOne) {
  const std::uint32_t stream = add_track(TrackKind::kGpuStream, "stream");
  span(host_, 0, 10, "plain op");
  span(stream, 0, 5, "first kernel");
  span(stream, 10, 20, "kernel", Category::kKernel, 7, 42);
  const Trace trace = builder_.finalize();
  EXPECT_TRUE(trace.track(host_).spans().correlation.empty());
  EXPECT_TRUE(trace.track(host_).spans().external_correlation.empty());
  const SpanColumns& gpu = trace.track(stream).spans();
  EXPECT_EQ(gpu.correlation, (std::vector<std::uint32_t>{0, 7}));
  ASSERT_EQ(gpu.external_correlation.size(), 2u);
  EXPECT_EQ(gpu.external_correlation[1], 42u);
  EXPECT_FALSE(gpu.external_correlation.wide());
  EXPECT_EQ(trace.span_record(stream, 1).correlation_id, 7u);
  EXPECT_EQ(trace.span_record(stream, 1).external_correlation_id, 42u);
  EXPECT_EQ(trace.span_record(host_, 0).correlation_id, 0u);
}

TEST_F(TraceBuilderTest, ExternalCorrelationIdsWidenTheTracksColumnWhenOneNeeds64Bits) {
  const std::uint64_t wide = std::uint64_t{1} << 40;
  span(host_, 0, 10, "op", Category::kCpuOp, 0, 3);
  span(host_, 20, 30, "op", Category::kCpuOp, 0, wide);
  const Trace trace = builder_.finalize();
  const SpanColumns& spans = trace.track(host_).spans();
  EXPECT_TRUE(spans.external_correlation.wide());
  EXPECT_EQ(spans.external_correlation_id(0), 3u);
  EXPECT_EQ(spans.external_correlation_id(1), wide);
  EXPECT_EQ(trace.span_record(host_, 1).external_correlation_id, wide);
}

TEST_F(TraceBuilderTest, OpsWithOwnTensorsShareTheirShapesAndWork) {
  SpanRecord first = testing::span_record(0, 10, builder_.intern("add"), Category::kCpuOp);
  first.op = OpInfo{{{2, 3}, {2, 3}}, 6, 48, 24, {1, 2}, {3}};
  SpanRecord second = first;
  second.start = 20;
  second.end = 30;
  second.op->tensors_read = {3, 4};
  second.op->tensors_written = {5};
  // Added out of order: the tables still follow the sorted spans.
  builder_.add_span(host_, second);
  builder_.add_span(host_, first);
  const Trace trace = builder_.finalize();
  EXPECT_EQ(trace.span_details().size(), 1u);
  EXPECT_EQ(trace.op_details().size(), 1u);
  EXPECT_EQ(trace.shapes().size(), 1u);
  EXPECT_EQ(trace.tensor_ids(), (std::vector<std::uint64_t>{1, 2, 3, 3, 4, 5}));
  EXPECT_EQ(trace.span_record(host_, 0), first);
  EXPECT_EQ(trace.span_record(host_, 1), second);
  const std::optional<OpView> op = trace.op(host_, 1);
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->input_shapes.size(), 2u);
  EXPECT_EQ(std::vector<std::int64_t>(op->input_shapes[1].begin(), op->input_shapes[1].end()),
            (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(std::vector<std::uint64_t>(op->tensors_read.begin(), op->tensors_read.end()),
            (std::vector<std::uint64_t>{3, 4}));
  EXPECT_FALSE(trace.op(host_, 0) == std::nullopt);
}

TEST_F(TraceBuilderTest, RejectsOpNamingMoreTensorsThanARunHolds) {
  SpanRecord record = testing::span_record(0, 10, builder_.intern("cat"), Category::kCpuOp);
  record.op = OpInfo{};
  record.op->tensors_read.assign(TensorRun::kMaxTensors + 1, 1);
  EXPECT_THROW(builder_.add_span(host_, record), TraceError);
}

TEST_F(TraceBuilderTest, MemoryEventsShareTheirContextsPerTrack) {
  const std::uint32_t pool = add_track(TrackKind::kMemoryPool, "pool");
  const StringId op = builder_.intern("conv");
  const MemoryRecord alloc{30, MemoryAction::kAlloc, 0x1000, 64, 0, op, kEmptyString, 64, 2048};
  MemoryRecord free = alloc;
  free.time = 40;
  free.action = MemoryAction::kFree;
  free.total_allocated = 0;
  MemoryRecord again = alloc;
  again.time = 10;
  again.address = 0x2000;
  builder_.add_memory_event(pool, alloc);
  builder_.add_memory_event(pool, free);
  builder_.add_memory_event(pool, again);
  const Trace trace = builder_.finalize();
  const MemoryColumns& memory = trace.track(pool).memory();
  EXPECT_EQ(memory.contexts.size(), 2u);
  EXPECT_EQ(memory.context, (std::vector<std::uint32_t>{0, 0, 1}));
  EXPECT_EQ(memory.record(0), again);
  EXPECT_EQ(memory.record(1), alloc);
  EXPECT_EQ(memory.record(2), free);
  EXPECT_EQ(memory.owner_op(2), op);
  EXPECT_EQ(memory.total_reserved(2), 2048u);
}

TEST(TraceBuilderOrder, EventsInAnyOrderBuildEqualTraces) {
  const Trace sample = testing::make_sample_trace();
  TraceBuilder reversed;
  for (StringId id = 1; id < sample.strings().size(); ++id)
    reversed.intern(sample.string(id));
  for (const Process& process : sample.processes())
    reversed.add_process(process);
  for (const Track& track : sample.tracks())
    reversed.add_track(track.info());
  for (std::uint32_t track = 0; track < sample.tracks().size(); ++track) {
    const Track& source = sample.track(track);
    for (std::uint32_t span = source.spans().size(); span-- > 0;)
      reversed.add_span(track, sample.span_record(track, span));
    for (std::uint32_t instant = source.instants().size(); instant-- > 0;)
      reversed.add_instant(track, sample.instant_record(track, instant));
    for (std::size_t sample_index = source.counters().size(); sample_index-- > 0;) {
      reversed.add_counter_sample(track, source.counters().time[sample_index],
                                  source.counters().value[sample_index]);
    }
    for (std::size_t event = source.memory().size(); event-- > 0;)
      reversed.add_memory_event(track, source.memory().record(event));
  }
  reversed.metadata() = sample.metadata();
  Trace rebuilt = reversed.finalize();
  // Flows are relinked from correlation ids; the sample's explicit ones are compared apart.
  EXPECT_EQ(rebuilt.span_details(), sample.span_details());
  EXPECT_EQ(rebuilt.op_details(), sample.op_details());
  EXPECT_EQ(rebuilt.shapes(), sample.shapes());
  EXPECT_EQ(rebuilt.tensor_ids(), sample.tensor_ids());
  EXPECT_EQ(rebuilt.args(), sample.args());
  EXPECT_EQ(rebuilt.tracks(), sample.tracks());
}

TEST_F(TraceBuilderTest, CountsEventsByKindAndCategory) {
  span(host_, 0, 10, "a", Category::kKernel);
  span(host_, 20, 30, "b", Category::kKernel);
  span(host_, 40, 50, "c", Category::kStep);
  builder_.add_counter_sample(host_, 5, 1.0);
  const TraceCounts counts = builder_.finalize().counts();
  EXPECT_EQ(counts.spans, 3u);
  EXPECT_EQ(counts.counter_samples, 1u);
  EXPECT_EQ(counts.spans_by_category[static_cast<int>(Category::kKernel)], 2u);
  EXPECT_EQ(counts.spans_by_category[static_cast<int>(Category::kStep)], 1u);
}

TEST_F(TraceBuilderTest, TimeSpanCoversAllEvents) {
  span(host_, 100, 200, "a");
  builder_.add_instant(host_, {50, kEmptyString, Category::kOther, {}});
  builder_.add_counter_sample(host_, 300, 1.0);
  const Trace trace = builder_.finalize();
  EXPECT_EQ(trace.begin_time(), 50);
  EXPECT_EQ(trace.end_time(), 300);
}

TEST_F(TraceBuilderTest, RejectsEventOnUnknownTrack) {
  EXPECT_THROW(span(99, 0, 1, "x"), TraceError);
}

TEST_F(TraceBuilderTest, RejectsSpanEndingBeforeItStarts) {
  EXPECT_THROW(span(host_, 10, 5, "x"), TraceError);
}

TEST_F(TraceBuilderTest, RejectsNameNotInterned) {
  EXPECT_THROW(builder_.add_span(host_, testing::span_record(0, 1, 1000)), TraceError);
}

TEST_F(TraceBuilderTest, RejectsTrackOfUnknownProcess) {
  EXPECT_THROW(builder_.add_track({TrackKind::kHostThread, kEmptyString, 5, 0, 0, 0, 0}),
               TraceError);
}

TEST_F(TraceBuilderTest, RejectsFlowToEventThatDoesNotExist) {
  const EventRef launch = span(host_, 10, 20, "launch");
  builder_.add_flow({FlowKind::kOther, 1, launch, {EventKind::kSpan, host_, 5}});
  EXPECT_THROW(builder_.finalize(), TraceError);
}

TEST_F(TraceBuilderTest, FinalizeLeavesTheBuilderEmpty) {
  span(host_, 0, 1, "x");
  builder_.finalize();
  EXPECT_EQ(builder_.track_count(), 0u);
  EXPECT_TRUE(builder_.finalize().tracks().empty());
}

// The timeline viewer budgets 32 bytes per loaded span: the hot columns plus the per-depth index.
TEST(Track, HotSpanColumnsFitTheViewerBudgetOf32Bytes) {
  const SpanColumns spans;
  // A duration in 32 bits, as every span under 4.29 s has it.
  const std::size_t per_span = sizeof(spans.start[0]) + sizeof(std::uint32_t) +
                               sizeof(spans.name[0]) + sizeof(spans.detail[0]) +
                               sizeof(spans.category[0]) + sizeof(spans.depth[0]) +
                               sizeof(std::uint32_t);
  EXPECT_LE(per_span, 32u);
}

TEST(EventRef, PacksIntoOneWordAndBack) {
  const EventRef ref{EventKind::kMemory, EventRef::kMaxTrack, 0xfffffffeu};
  EXPECT_EQ(EventRef::unpack(ref.pack()), ref);
  const EventRef small{EventKind::kInstant, 3, 9};
  EXPECT_EQ(EventRef::unpack(small.pack()), small);
  EXPECT_NE(small.pack(), (EventRef{EventKind::kSpan, 3, 9}).pack());
}

}  // namespace
}  // namespace tscope::trace
