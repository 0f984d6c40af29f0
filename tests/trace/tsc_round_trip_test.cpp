#include <gtest/gtest.h>

#include <filesystem>

#include "sample_trace.h"
#include "scratch_folder.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/time_range.h"
#include "tscope/trace/trace_builder.h"
#include "tscope/trace/tsc_reader.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::trace {
namespace {

class TscRoundTripTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = tscope::testing::scratch_path(
        std::string("tsc_round_trip_") +
        ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".tsc");
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::filesystem::path path_;
};

TEST_F(TscRoundTripTest, WholeTraceReadsBackIdentical) {
  const Trace original = testing::make_sample_trace();
  write_tsc(original, path_);
  const TscReadResult result = read_tsc(path_);
  EXPECT_FALSE(result.truncated());
  EXPECT_EQ(result.trace, original);
}

TEST_F(TscRoundTripTest, SampleTraceExercisesEveryDetailKind) {
  const Trace original = testing::make_sample_trace();
  EXPECT_EQ(original.kernels().size(), 1u);
  EXPECT_EQ(original.copies().size(), 1u);
  EXPECT_EQ(original.op_details().size(), 1u);
  EXPECT_GE(original.args().size(), 4u);
  EXPECT_GE(original.flows().size(), 3u);  // explicit + launch->kernel + op->kernel
  const TraceCounts counts = original.counts();
  EXPECT_GT(counts.instants, 0u);
  EXPECT_GT(counts.counter_samples, 0u);
  EXPECT_GT(counts.memory_events, 0u);
}

TEST_F(TscRoundTripTest, SmallChunksReadBackIdentical) {
  const Trace original = testing::make_sample_trace();
  write_tsc(original, path_, testing::events_per_chunk(1));
  EXPECT_EQ(read_tsc(path_).trace, original);
}

TEST_F(TscRoundTripTest, ExtremeValuesSurvive) {
  TraceBuilder builder;
  const std::uint32_t process =
      builder.add_process({INT64_MIN, builder.intern("p"), kEmptyString, INT32_MIN, INT32_MAX});
  const std::uint32_t track = builder.add_track(
      {TrackKind::kCounter, kEmptyString, process, INT64_MAX, INT32_MIN, INT64_MIN, -1});
  // Times at the ends of the range a trace holds (time_range.h).
  SpanRecord widest = testing::span_record(-kMaxAbsTimeNs, kMaxAbsTimeNs);
  widest.correlation_id = UINT32_MAX;
  widest.external_correlation_id = UINT64_MAX;
  builder.add_span(track, widest);
  builder.add_span(track, testing::span_record(kMaxAbsTimeNs, kMaxAbsTimeNs));
  builder.add_counter_sample(track, kMaxAbsTimeNs, -0.0);
  builder.add_counter_sample(track, -kMaxAbsTimeNs, 1e308);
  builder.add_memory_event(track, {-1, MemoryAction::kFree, UINT64_MAX, UINT64_MAX, INT32_MIN,
                                   kEmptyString, kEmptyString, UINT64_MAX, 0});
  const Trace original = builder.finalize();
  write_tsc(original, path_);
  EXPECT_EQ(read_tsc(path_).trace, original);
}

TEST_F(TscRoundTripTest, EmptyTraceReadsBackEmpty) {
  const Trace original = TraceBuilder().finalize();
  write_tsc(original, path_);
  EXPECT_EQ(read_tsc(path_).trace, original);
}

TEST_F(TscRoundTripTest, StreamedEventsInAnyOrderReadBackSorted) {
  TscWriter writer(path_, testing::events_per_chunk(2));
  const std::uint32_t process = writer.add_process({1, writer.intern("p"), kEmptyString, -1, 0});
  const std::uint32_t track =
      writer.add_track({TrackKind::kHostThread, writer.intern("t"), process, 1, -1, -1, 0});
  for (TimeNs start : {50, 10, 30, 20, 40}) {
    writer.add_span(track, testing::span_record(start, start + 5, writer.intern("s")));
  }
  writer.close();
  const Trace trace = read_tsc(path_).trace;
  const TimeColumn& starts = trace.track(track).spans().start;
  EXPECT_EQ(std::vector<TimeNs>(starts.begin(), starts.end()),
            (std::vector<TimeNs>{10, 20, 30, 40, 50}));
}

TEST_F(TscRoundTripTest, FlushedChunksAreReadableWhileWriterIsOpen) {
  TscWriter writer(path_, testing::events_per_chunk(1000));
  const std::uint32_t process = writer.add_process({1, writer.intern("p"), kEmptyString, -1, 0});
  const std::uint32_t track =
      writer.add_track({TrackKind::kHostThread, kEmptyString, process, 1, -1, -1, 0});
  writer.add_span(track, testing::span_record(1, 2));
  writer.add_dropped_events(3);
  writer.flush();
  writer.add_span(track, testing::span_record(3, 4));
  const TscReadResult result = read_tsc(path_);
  EXPECT_EQ(result.trace.counts().spans, 1u);
  EXPECT_EQ(result.trace.metadata().dropped_events, 3u);
  EXPECT_FALSE(result.truncated());
}

TEST_F(TscRoundTripTest, WriterKeepsMetadataOfLastFlush) {
  {
    TscWriter writer(path_);
    writer.set_metadata_value("gpu", "H100");
    writer.add_dropped_events(1);
    writer.flush();
    writer.set_metadata_value("gpu", "H200");
    writer.add_dropped_events(1);
  }
  const Trace trace = read_tsc(path_).trace;
  EXPECT_EQ(trace.metadata().values.at("gpu"), "H200");
  EXPECT_EQ(trace.metadata().dropped_events, 2u);
  EXPECT_EQ(trace.metadata().source_format, "tsc");
}

TEST_F(TscRoundTripTest, WriterRejectsEventOnUnknownTrack) {
  TscWriter writer(path_);
  EXPECT_THROW(writer.add_span(0, testing::span_record(0, 1)), TraceError);
}

TEST_F(TscRoundTripTest, WriterRejectsUseAfterClose) {
  TscWriter writer(path_);
  writer.close();
  EXPECT_THROW(writer.flush(), TraceError);
}

TEST_F(TscRoundTripTest, WriterReportsUncreatableFile) {
  EXPECT_THROW(TscWriter(path_ / "no" / "such" / "dir.tsc"), IoError);
}

}  // namespace
}  // namespace tscope::trace
