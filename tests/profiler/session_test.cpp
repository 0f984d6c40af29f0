// Sessions and the recording API: what a range, instant, counter, flow or memory event becomes in
// the trace, and what happens under many threads when buffers suffice and when they do not.

#include "tscope/profiler/session.h"

#include <gtest/gtest.h>

#include <barrier>
#include <thread>
#include <vector>

#include "trace_queries.h"
#include "tscope/profiler/record.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

using testing::span_arg;
using testing::spans_named;
using testing::temporary_trace_path;
using trace::Category;

trace::Trace record(const SessionOptions& options, const std::function<void()>& body) {
  Session session(options);
  session.start();
  body();
  session.stop();
  return trace::load_trace(options.output);
}

TEST(Session, RecordsNestedRangesWithTheirArguments) {
  const trace::Trace recorded = record({.output = temporary_trace_path()}, [] {
    const Range outer("outer", Category::kUserAnnotation, {{"batch", 64}, {"mode", "train"}});
    const Range inner("inner", Category::kOptimizer);
  });
  const auto outer = spans_named(recorded, "outer");
  const auto inner = spans_named(recorded, "inner");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(span_arg(recorded, outer[0], "batch"), "64");
  EXPECT_EQ(span_arg(recorded, outer[0], "mode"), "train");
  const trace::SpanColumns& spans = recorded.track(inner[0].track).spans();
  EXPECT_EQ(spans.depth[inner[0].index], 1);
  EXPECT_EQ(spans.category[inner[0].index], Category::kOptimizer);
  EXPECT_LE(spans.start[outer[0].index], spans.start[inner[0].index]);
  EXPECT_GE(spans.end(outer[0].index), spans.end(inner[0].index));
}

TEST(Session, NamesStepsForTheAnalyzer) {
  const trace::Trace recorded = record({.output = temporary_trace_path()}, [] {
    for (int step = 0; step < 3; ++step)
      const StepRange range(step);
  });
  for (const char* name : {"step 0", "step 1", "step 2"}) {
    const auto steps = spans_named(recorded, name);
    ASSERT_EQ(steps.size(), 1u) << name;
    EXPECT_EQ(recorded.track(steps[0].track).spans().category[steps[0].index], Category::kStep);
  }
}

TEST(Session, RecordsInstantsAndCountersOnTheirTracks) {
  const trace::Trace recorded =
      record({.output = temporary_trace_path(), .sample_process_counters = false}, [] {
        instant("checkpoint", Category::kOther);
        counter("queue depth", 3.0);
        counter("queue depth", 5.0);
      });
  EXPECT_EQ(testing::instants_named(recorded, "checkpoint"), 1u);
  const trace::Track* queue = nullptr;
  for (const trace::Track& track : recorded.tracks()) {
    if (recorded.string(track.info().name) == "queue depth") queue = &track;
  }
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->info().kind, trace::TrackKind::kCounter);
  EXPECT_EQ(queue->counters().value, (std::vector<double>{3.0, 5.0}));
}

TEST(Session, SamplesProcessRssAndCpu) {
  const trace::Trace recorded =
      record({.output = temporary_trace_path(), .flush_interval = std::chrono::milliseconds(10)},
             [] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
  bool rss = false;
  bool cpu = false;
  for (const trace::Track& track : recorded.tracks()) {
    const std::string_view name = recorded.string(track.info().name);
    if (name == "process RSS (bytes)")
      rss = !track.counters().value.empty() && track.counters().value[0] > 0;
    if (name == "process CPU (%)") cpu = !track.counters().value.empty();
  }
  EXPECT_TRUE(rss);
  EXPECT_TRUE(cpu);
}

TEST(Session, AttachesMemoryEventsToTheEnclosingRange) {
  const trace::Trace recorded = record({.output = temporary_trace_path()}, [] {
    const Range scope("forward");
    memory_event({.action = trace::MemoryAction::kAlloc,
                  .address = 0x1000,
                  .bytes = 256,
                  .owner_op = "matmul",
                  .total_allocated = 256,
                  .total_reserved = 512});
    memory_event({.action = trace::MemoryAction::kFree, .address = 0x1000, .bytes = 256});
  });
  const trace::Track* pool = nullptr;
  for (const trace::Track& track : recorded.tracks()) {
    if (track.info().kind == trace::TrackKind::kMemoryPool) pool = &track;
  }
  ASSERT_NE(pool, nullptr);
  ASSERT_EQ(pool->memory().size(), 2u);
  const trace::MemoryRecord alloc = pool->memory().record(0);
  EXPECT_EQ(alloc.action, trace::MemoryAction::kAlloc);
  EXPECT_EQ(alloc.bytes, 256u);
  EXPECT_EQ(recorded.string(alloc.owner_op), "matmul");
  EXPECT_EQ(recorded.string(alloc.scope), "forward");
  EXPECT_EQ(alloc.total_allocated, 256u);
  EXPECT_EQ(alloc.total_reserved, 512u);
  EXPECT_EQ(pool->memory().record(1).action, trace::MemoryAction::kFree);
}

TEST(Session, JoinsFlowEndsAcrossThreads) {
  const trace::Trace recorded = record({.output = temporary_trace_path()}, [] {
    {
      const Range producer("enqueue");
      flow_start(7);
    }
    std::thread([] {
      const Range consumer("dequeue");
      flow_end(7);
    }).join();
  });
  ASSERT_EQ(recorded.flows().size(), 1u);
  const trace::Flow& flow = recorded.flows()[0];
  EXPECT_EQ(flow.id, 7u);
  const auto enqueue = spans_named(recorded, "enqueue");
  const auto dequeue = spans_named(recorded, "dequeue");
  ASSERT_EQ(enqueue.size(), 1u);
  ASSERT_EQ(dequeue.size(), 1u);
  EXPECT_EQ(flow.from.track, enqueue[0].track);
  EXPECT_EQ(flow.to.track, dequeue[0].track);
}

TEST(Session, RecordsOperatorsWithTheirDetail) {
  const trace::Trace recorded = record({.output = temporary_trace_path()}, [] {
    const std::vector<std::int64_t> shape_a{2, 3};
    const std::vector<std::int64_t> shape_b{3, 4};
    const OpTensor inputs[] = {{11, shape_a}, {12, shape_b}};
    const OpTensor outputs[] = {{13, {}}};
    OpRange op("matmul");
    op.finish(
        {.inputs = inputs, .outputs = outputs, .flops = 48, .bytes_read = 72, .bytes_written = 32});
  });
  const auto matmul = spans_named(recorded, "matmul");
  ASSERT_EQ(matmul.size(), 1u);
  const trace::SpanRecord span = recorded.span_record(matmul[0].track, matmul[0].index);
  EXPECT_EQ(span.category, Category::kCpuOp);
  ASSERT_TRUE(span.op.has_value());
  EXPECT_EQ(span.op->input_shapes, (std::vector<std::vector<std::int64_t>>{{2, 3}, {3, 4}}));
  EXPECT_EQ(span.op->tensors_read, (std::vector<std::uint64_t>{11, 12}));
  EXPECT_EQ(span.op->tensors_written, (std::vector<std::uint64_t>{13}));
  EXPECT_EQ(span.op->flops, 48u);
  EXPECT_EQ(span.op->bytes_read, 72u);
  EXPECT_EQ(span.op->bytes_written, 32u);
}

TEST(Session, ClosesRangesStillOpenAtStopAsUnfinished) {
  const auto path = temporary_trace_path();
  Session session({.output = path});
  session.start();
  const Range open("still open");
  session.stop();
  const trace::Trace recorded = trace::load_trace(path);
  const auto spans = spans_named(recorded, "still open");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(span_arg(recorded, spans[0], "unfinished"), "1");
}

TEST(Session, RecordsNothingWhileStopped) {
  const Range before("before the session");
  instant("before the session");
  const trace::Trace recorded = record({.output = temporary_trace_path()}, [] {});
  EXPECT_TRUE(spans_named(recorded, "before the session").empty());
  EXPECT_EQ(testing::instants_named(recorded, "before the session"), 0u);
}

TEST(Session, RefusesASecondSessionWhileOneRuns) {
  Session first({.output = temporary_trace_path()});
  first.start();
  Session second({.output = temporary_trace_path().string() + ".second"});
  EXPECT_THROW(second.start(), ProfilerError);
}

constexpr int kThreads = 8;

// Every thread records `per_thread` ranges at once (a barrier lines them up).
void record_from_threads(int per_thread) {
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < per_thread; ++i)
        const Range range("work", Category::kUserAnnotation, {{"i", i}});
    });
  }
  for (auto& thread : threads)
    thread.join();
}

TEST(Session, EightThreadsLoseNothingWhenBuffersSuffice) {
  constexpr int kPerThread = 20000;
  const auto path = temporary_trace_path();
  Session session({.output = path, .buffer_bytes_per_thread = std::size_t{8} << 20});
  session.start();
  record_from_threads(kPerThread);
  const SessionSummary summary = session.stop();
  const trace::Trace recorded = trace::load_trace(path);
  EXPECT_EQ(summary.dropped_events, 0u);
  EXPECT_EQ(recorded.metadata().dropped_events, 0u);
  EXPECT_EQ(spans_named(recorded, "work").size(), std::size_t{kThreads} * kPerThread);
}

TEST(Session, EightThreadsReportExactDropCountsWhenBuffersOverflow) {
  constexpr int kPerThread = 20000;
  const auto path = temporary_trace_path();
  // Small buffers and a writer that does not drain until stop: most ranges cannot fit.
  Session session({.output = path,
                   .buffer_bytes_per_thread = std::size_t{64} * 1024,
                   .flush_interval = std::chrono::milliseconds(60'000)});
  session.start();
  record_from_threads(kPerThread);
  const SessionSummary summary = session.stop();
  const trace::Trace recorded = trace::load_trace(path);
  const std::size_t kept = spans_named(recorded, "work").size();
  EXPECT_GT(summary.dropped_events, 0u);
  EXPECT_GT(kept, 0u);
  EXPECT_EQ(recorded.metadata().dropped_events, summary.dropped_events);
  EXPECT_EQ(kept + recorded.metadata().dropped_events, std::size_t{kThreads} * kPerThread);
}

}  // namespace
}  // namespace tscope::profiler
