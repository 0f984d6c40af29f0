// set_trace_metadata: values set before a session starts, or while it runs, land in its trace's
// metadata; a later value for the same key replaces the earlier one.

#include "tscope/profiler/trace_metadata.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "trace_queries.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

TEST(TraceMetadata, ValuesSetBeforeAndDuringASessionLandInItsTrace) {
  set_trace_metadata("metadata_test_before", "early");
  set_trace_metadata("metadata_test_replaced", "first");
  const auto path = testing::temporary_trace_path();
  Session session({.output = path, .flush_interval = std::chrono::milliseconds(10)});
  session.start();
  // Past a flush or two, so that the mid-run value is written by a later metadata chunk.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  set_trace_metadata("metadata_test_during", "late");
  set_trace_metadata("metadata_test_replaced", "second");
  session.stop();
  const trace::Trace recorded = trace::load_trace(path);
  const auto& values = recorded.metadata().values;
  EXPECT_EQ(values.at("metadata_test_before"), "early");
  EXPECT_EQ(values.at("metadata_test_during"), "late");
  EXPECT_EQ(values.at("metadata_test_replaced"), "second");
  EXPECT_EQ(values.at("recorder"), "tscope profiler");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tscope::profiler
