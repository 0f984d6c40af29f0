// Capture under overload, with exact accounting: 16 threads each emit a known number of ranges,
// instants and counter samples. With 64 KiB buffers most cannot fit, and for every thread what the
// trace holds plus what the trace says that thread dropped equals what it emitted; the trace is
// valid and resident memory stays bounded by the buffers plus the writer. With large buffers
// nothing is dropped.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <barrier>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "sanitizer_build.h"
#include "trace_queries.h"
#include "tscope/profiler/record.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

using testing::temporary_trace_path;
using trace::Category;

constexpr int kThreads = 16;
constexpr int kPerThread = 20'000;  // of each kind: ranges, instants and counter samples
constexpr std::uint64_t kEmittedPerThread = std::uint64_t{3} * kPerThread;

// Counter names must outlive the session (they are recorded as static names); one per thread,
// so each thread's samples land on a track of their own.
const std::array<std::string, kThreads>& counter_names() {
  static const std::array<std::string, kThreads> names = [] {
    std::array<std::string, kThreads> out;
    for (int t = 0; t < kThreads; ++t)
      out[t] = "overload counter " + std::to_string(t);
    return out;
  }();
  return names;
}

// Runs the threads and returns their OS thread ids, index by index with counter_names().
std::vector<std::int64_t> emit_from_threads() {
  std::vector<std::int64_t> thread_ids(kThreads);
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      thread_ids[t] = static_cast<std::int64_t>(syscall(SYS_gettid));
      start.arrive_and_wait();
      for (int i = 0; i < kPerThread; ++i) {
        const Range range("overload range", Category::kUserAnnotation, {{"i", i}});
        instant("overload instant");
        counter(counter_names()[t], i);
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  return thread_ids;
}

struct Recorded {
  std::uint64_t events = 0;   // spans and instants on the thread's track, samples on its counter
  std::uint64_t dropped = 0;  // what the trace says the thread dropped
};

Recorded recorded_for(const trace::Trace& trace, std::int64_t thread_id,
                      const std::string& counter_name) {
  Recorded out;
  for (const trace::Track& track : trace.tracks()) {
    const bool thread_track =
        track.info().kind == trace::TrackKind::kHostThread && track.info().thread_id == thread_id;
    if (thread_track) out.events += track.spans().size() + track.instants().size();
    if (trace.string(track.info().name) == counter_name) out.events += track.counters().size();
  }
  const auto& values = trace.metadata().values;
  if (const auto found =
          values.find(std::string(kDroppedEventsOfThreadKey) + std::to_string(thread_id));
      found != values.end()) {
    out.dropped = std::stoull(found->second);
  }
  return out;
}

// Every span ends at or after its start (load_trace has checked the file itself).
void expect_valid_spans(const trace::Trace& trace) {
  for (const trace::Track& track : trace.tracks()) {
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t i = 0; i < spans.size(); ++i)
      ASSERT_GE(spans.end(i), spans.start[i]);
  }
}

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

TEST(CaptureOverload, SixteenThreadsIn64KiBBuffersAccountForEveryEventExactly) {
  constexpr std::size_t kBuffer = std::size_t{64} * 1024;
  const auto path = temporary_trace_path();
  const std::uint64_t rss_before = peak_rss_bytes();
  Session session({.output = path, .buffer_bytes_per_thread = kBuffer});
  session.start();
  const std::vector<std::int64_t> thread_ids = emit_from_threads();
  const SessionSummary summary = session.stop();
  const std::uint64_t rss_growth = peak_rss_bytes() - rss_before;

  const trace::Trace trace = trace::load_trace(path);
  expect_valid_spans(trace);
  EXPECT_GT(summary.dropped_events, 0u) << "64 KiB buffers should overflow";
  EXPECT_EQ(trace.metadata().dropped_events, summary.dropped_events);
  std::uint64_t dropped_total = 0;
  for (int t = 0; t < kThreads; ++t) {
    const Recorded recorded = recorded_for(trace, thread_ids[t], counter_names()[t]);
    EXPECT_EQ(recorded.events + recorded.dropped, kEmittedPerThread)
        << "thread " << t << ": recorded " << recorded.events << ", dropped " << recorded.dropped;
    dropped_total += recorded.dropped;
  }
  EXPECT_EQ(dropped_total, summary.dropped_events);
  // The buffers, the writer's pending chunks and the threads' stacks; sanitizer allocators keep
  // freed memory in quarantine (256 MiB by default), so they get that much more.
  const std::uint64_t bound = kThreads * kBuffer + (std::uint64_t{96} << 20) +
                              (testing::sanitizer_build() ? 256u << 20 : 0u);
  EXPECT_LT(rss_growth, bound) << "resident memory grew by " << rss_growth << " bytes";
  std::filesystem::remove(path);
}

TEST(CaptureOverload, SixteenThreadsWithLargeBuffersDropNothing) {
  const auto path = temporary_trace_path();
  Session session({.output = path, .buffer_bytes_per_thread = std::size_t{16} << 20});
  session.start();
  const std::vector<std::int64_t> thread_ids = emit_from_threads();
  const SessionSummary summary = session.stop();
  const trace::Trace trace = trace::load_trace(path);
  expect_valid_spans(trace);
  EXPECT_EQ(summary.dropped_events, 0u);
  EXPECT_EQ(trace.metadata().dropped_events, 0u);
  for (int t = 0; t < kThreads; ++t) {
    const Recorded recorded = recorded_for(trace, thread_ids[t], counter_names()[t]);
    EXPECT_EQ(recorded.events, kEmittedPerThread) << "thread " << t;
    EXPECT_EQ(recorded.dropped, 0u) << "thread " << t;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tscope::profiler
