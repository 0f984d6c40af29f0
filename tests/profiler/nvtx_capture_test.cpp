// NVTX pushes captured in-process (the program's static injection): a message is recorded with the
// text it holds at each push, whether its text is interned or copied, and a step name keeps its
// category either way.

#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <array>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "trace_queries.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

using testing::temporary_trace_path;

template <typename Body>
trace::Trace record(const Body& body) {
  const SessionOptions options{.output = temporary_trace_path()};
  Session session(options);
  session.start();
  body();
  session.stop();
  return trace::load_trace(options.output);
}

// The names of the spans of the track that holds `first_name`, in start order.
std::vector<std::string> span_names_beside(const trace::Trace& recorded,
                                           std::string_view first_name) {
  const auto found = testing::spans_named(recorded, first_name);
  EXPECT_FALSE(found.empty()) << first_name;
  std::vector<std::string> names;
  if (found.empty()) return names;
  const trace::SpanColumns& spans = recorded.track(found[0].track).spans();
  for (std::uint32_t i = 0; i < spans.size(); ++i)
    names.emplace_back(recorded.string(spans.name[i]));
  return names;
}

void push_pop(const char* message) {
  nvtxRangePushA(message);
  nvtxRangePop();
}

TEST(NvtxCapture, RecordsTheTextABufferHoldsAtEachPush) {
  // Each text is pushed twice from the same buffer, so it is interned before the buffer is
  // rewritten, shorter and longer, in place.
  const std::vector<std::string> texts{
      "alpha", "alpha", "be", "be", "a much longer gamma", "a much longer gamma", "alpha"};
  const trace::Trace recorded = record([&] {
    std::array<char, 64> buffer{};
    for (const std::string& text : texts) {
      std::memcpy(buffer.data(), text.c_str(), text.size() + 1);
      push_pop(buffer.data());
    }
  });
  EXPECT_EQ(span_names_beside(recorded, "alpha"), texts);
}

TEST(NvtxCapture, NamesEveryPushOfARepeatedMessage) {
  const trace::Trace recorded = record([] {
    for (int i = 0; i < 100; ++i)
      push_pop("repeated message");
  });
  EXPECT_EQ(testing::spans_named(recorded, "repeated message").size(), 100u);
}

// Threads intern the same literal and their own rewritten buffers at once: the table they share
// hands every thread the same text, and no thread records another's buffer.
TEST(NvtxCapture, ThreadsInternTheirMessagesIndependently) {
  constexpr int kThreads = 4;
  constexpr int kPushes = 200;
  const trace::Trace recorded = record([] {
    // NVTX fills its function table on the process's first call without synchronising it, so
    // first calls from several threads at once race inside NVTX (ThreadSanitizer reports it);
    // the main thread makes the first one, as a program's start-up would.
    push_pop("threads start");
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([t] {
        std::array<char, 32> buffer{};
        for (int i = 0; i < kPushes; ++i) {
          push_pop("shared message");
          // Each text twice in a row, so that it is interned before the buffer changes.
          const std::string text =
              "thread " + std::to_string(t) + ((i / 2) % 2 == 0 ? " even" : " odd");
          std::memcpy(buffer.data(), text.c_str(), text.size() + 1);
          push_pop(buffer.data());
        }
      });
    }
    for (std::thread& thread : threads)
      thread.join();
  });
  EXPECT_EQ(testing::spans_named(recorded, "shared message").size(),
            static_cast<std::size_t>(kThreads * kPushes));
  for (int t = 0; t < kThreads; ++t) {
    for (const char* parity : {" even", " odd"}) {
      const std::string name = "thread " + std::to_string(t) + parity;
      EXPECT_EQ(testing::spans_named(recorded, name).size(), static_cast<std::size_t>(kPushes / 2))
          << name;
    }
  }
}

// A record keeps at most 1 KiB of a copied name; a longer message is cut there at every push,
// never interned whole for its later ones.
TEST(NvtxCapture, CutsALongMessageAlikeAtEveryPush) {
  const std::string message(3000, 'x');
  const trace::Trace recorded = record([&] {
    for (int i = 0; i < 3; ++i)
      push_pop(message.c_str());
  });
  EXPECT_EQ(testing::spans_named(recorded, std::string(1024, 'x')).size(), 3u);
}

TEST(NvtxCapture, KeepsTheStepCategoryOfARepeatedStepName) {
  const trace::Trace recorded = record([] {
    for (int i = 0; i < 3; ++i)
      push_pop("step 7");
  });
  const auto steps = testing::spans_named(recorded, "step 7");
  ASSERT_EQ(steps.size(), 3u);
  for (const testing::SpanAt& step : steps) {
    EXPECT_EQ(recorded.track(step.track).spans().category[step.index], trace::Category::kStep);
  }
}

}  // namespace
}  // namespace tscope::profiler
