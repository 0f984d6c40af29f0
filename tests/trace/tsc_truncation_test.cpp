#include <gtest/gtest.h>

#include <filesystem>

#include "sample_trace.h"
#include "scratch_folder.h"
#include "tsc_test_files.h"
#include "tscope/trace/tsc_reader.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::trace {
namespace {

class TscTruncationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto path = tscope::testing::scratch_path("tsc_truncation.tsc");
    original_ = testing::make_sample_trace();
    // One event per chunk gives many chunk boundaries to cut around.
    write_tsc(original_, path, testing::events_per_chunk(1));
    file_ = testing::read_bytes(path);
    std::filesystem::remove(path);
    ends_ = testing::chunk_ends(file_);
  }

  Trace original_;
  testing::Bytes file_;
  std::vector<std::size_t> ends_;
};

TEST_F(TscTruncationTest, SampleFileHasManyChunks) {
  ASSERT_GT(ends_.size(), 10u);
  EXPECT_EQ(ends_.back(), file_.size());
}

TEST_F(TscTruncationTest, FileCutAtAnyByteLoadsItsWholeChunks) {
  for (std::size_t cut = 0; cut < file_.size(); ++cut) {
    const std::span<const std::uint8_t> prefix(file_.data(), cut);
    std::size_t whole_chunks = 0;
    std::size_t last_end = cut < 16 ? 0 : 16;
    for (const std::size_t end : ends_) {
      if (end > cut) break;
      ++whole_chunks;
      last_end = end;
    }
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    TscReadResult result;
    ASSERT_NO_THROW(result = read_tsc(prefix, "cut.tsc"));
    EXPECT_EQ(result.chunks_read, whole_chunks);
    EXPECT_EQ(result.lost_bytes, cut - last_end);
    EXPECT_EQ(result.trace.metadata().lost_bytes, cut - last_end);
    EXPECT_EQ(result.trace.metadata().lost_records, cut == last_end ? 0u : 1u);
  }
}

TEST_F(TscTruncationTest, EventsGrowMonotonicallyWithTheCut) {
  std::uint64_t previous = 0;
  for (const std::size_t end : ends_) {
    const TscReadResult result =
        read_tsc(std::span<const std::uint8_t>(file_.data(), end), "cut.tsc");
    const TraceCounts counts = result.trace.counts();
    const std::uint64_t events =
        counts.spans + counts.instants + counts.counter_samples + counts.memory_events;
    EXPECT_GE(events, previous);
    previous = events;
  }
  const TraceCounts all = original_.counts();
  EXPECT_EQ(previous, all.spans + all.instants + all.counter_samples + all.memory_events);
}

TEST_F(TscTruncationTest, CutInsideLastChunkKeepsEveryEarlierEvent) {
  // The last chunk is metadata, so every event survives a cut inside it.
  const std::size_t cut = ends_.back() - 1;
  const TscReadResult result =
      read_tsc(std::span<const std::uint8_t>(file_.data(), cut), "cut.tsc");
  EXPECT_TRUE(result.truncated());
  EXPECT_EQ(result.trace.counts().spans, original_.counts().spans);
  EXPECT_EQ(result.trace.flows(), original_.flows());
}

}  // namespace
}  // namespace tscope::trace
