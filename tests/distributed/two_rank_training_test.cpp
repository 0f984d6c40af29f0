// A real two-rank data-parallel training run with a planted straggler, recorded as a user does
// (record_two_ranks.sh: mpirun -np 2 tscope record -o r%r.tsc -- train_fashion_mnist
// --distributed --slow-rank 1): one trace per rank, each with its rank's identity in the metadata,
// the same collectives in the same order with the same sequence numbers on both, and the planted
// host work on rank 1 only.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "scratch_folder.h"
#include "test_data.h"
#include "trace_queries.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope {
namespace {

using testing::quoted;
using testing::span_arg;
using testing::SpanAt;

constexpr int kSteps = 12;  // record_two_ranks.sh's default
constexpr int kSlowMs = 30;
constexpr int kExitSkipped = 77;

// What must agree across ranks about one collective.
struct CollectiveRecord {
  std::string name;
  std::int64_t sequence = 0;
  std::string collective;
  std::string in_elements;
  std::string dtype;
  std::string bucket;
  std::string thread;

  bool same_collective(const CollectiveRecord& other) const {
    return name == other.name && sequence == other.sequence && collective == other.collective &&
           in_elements == other.in_elements && dtype == other.dtype && bucket == other.bucket;
  }
};

std::vector<CollectiveRecord> collectives(const trace::Trace& recorded) {
  std::vector<CollectiveRecord> found;
  for (std::uint32_t track = 0; track < recorded.tracks().size(); ++track) {
    const trace::SpanColumns& spans = recorded.track(track).spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != trace::Category::kCommunication) continue;
      const SpanAt at{track, i};
      found.push_back(
          {std::string(recorded.string(spans.name[i])), std::stoll(span_arg(recorded, at, "Seq")),
           span_arg(recorded, at, "Collective name"), span_arg(recorded, at, "In msg nelems"),
           span_arg(recorded, at, "dtype"), span_arg(recorded, at, "bucket"),
           std::string(testing::track_name(recorded, track))});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
  return found;
}

std::int64_t total_ns(const trace::Trace& recorded, std::string_view name) {
  std::int64_t total = 0;
  for (const SpanAt& at : testing::spans_named(recorded, name)) {
    const trace::SpanColumns& spans = recorded.track(at.track).spans();
    total += spans.end(at.index) - spans.start[at.index];
  }
  return total;
}

// One recorded run serves every test of the suite.
class TwoRankTraining : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz"))
      return;  // SetUp skips, or fails where every input is required
    directory_ = tscope::testing::scratch_path("tscope_two_ranks");
    std::filesystem::remove_all(directory_);
    const testing::CommandResult run = testing::run_command(
        "TSCOPE_TWO_RANK_STEPS=" + std::to_string(kSteps) +
        " TSCOPE_FASHION_MNIST_DIR=" + quoted(testing::fashion_mnist_dir()) + " " +
        quoted(std::filesystem::path(TSCOPE_SOURCE_DIR) / "tests/distributed/record_two_ranks.sh") +
        " " + quoted(TSCOPE_BINARY_DIR) + " " + quoted(directory_) + " --slow-rank 1 --slow-ms " +
        std::to_string(kSlowMs));
    run_ = run;
    if (run.exit_code != 0) return;
    try {
      for (const char* name : {"r0.tsc", "r1.tsc"})
        ranks_.push_back(trace::load_trace(directory_ / name));
    } catch (const std::exception& error) {
      load_error_ = error.what();
    }
  }
  static void TearDownTestSuite() {
    ranks_.clear();
    if (!directory_.empty()) std::filesystem::remove_all(directory_);
  }
  void SetUp() override {
    TSCOPE_REQUIRE_FILE(testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz");
    if (run_.exit_code == kExitSkipped) GTEST_SKIP() << run_.output;
    ASSERT_EQ(run_.exit_code, 0) << run_.output;
    ASSERT_TRUE(load_error_.empty()) << load_error_;
    ASSERT_EQ(ranks_.size(), 2u);
  }
  const trace::Trace& rank(int index) const { return ranks_[static_cast<std::size_t>(index)]; }

  static inline std::filesystem::path directory_;
  static inline testing::CommandResult run_;
  static inline std::string load_error_;
  static inline std::vector<trace::Trace> ranks_;
};

TEST_F(TwoRankTraining, EachTraceCarriesItsRanksIdentity) {
  for (int rank_index = 0; rank_index < 2; ++rank_index) {
    const auto& values = rank(rank_index).metadata().values;
    EXPECT_EQ(values.at("rank"), std::to_string(rank_index));
    EXPECT_EQ(values.at("world_size"), "2");
    EXPECT_EQ(values.at("local_rank"), std::to_string(rank_index));
    EXPECT_EQ(values.at("backend"), "mpi");
    EXPECT_FALSE(values.at("host").empty());
  }
  EXPECT_FALSE(rank(0).metadata().values.at("run_id").empty());
  EXPECT_EQ(rank(0).metadata().values.at("run_id"), rank(1).metadata().values.at("run_id"));
  EXPECT_EQ(rank(0).metadata().values.at("host"), rank(1).metadata().values.at("host"));
}

TEST_F(TwoRankTraining, BothRanksHoldTheSameCollectivesInSequence) {
  const auto first = collectives(rank(0));
  const auto second = collectives(rank(1));
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].sequence, static_cast<std::int64_t>(i + 1));
    EXPECT_TRUE(first[i].same_collective(second[i]))
        << "Seq " << first[i].sequence << ": " << first[i].name << " " << first[i].in_elements
        << " against " << second[i].name << " " << second[i].in_elements;
    EXPECT_EQ(first[i].thread, "mpi comm");
  }
  // The run id's broadcast, one broadcast per parameter (the MLP has 6), then one gradient
  // bucket (the MLP's 0.9 MiB fit in 25 MiB) per step.
  ASSERT_EQ(first.size(), 1u + 6u + kSteps);
  EXPECT_EQ(first[0].name, "mpi:broadcast");
  EXPECT_EQ(first[0].dtype, "Long");
  for (std::size_t i = 7; i < first.size(); ++i) {
    EXPECT_EQ(first[i].name, "mpi:all_reduce");
    EXPECT_EQ(first[i].collective, "allreduce");
    EXPECT_EQ(first[i].dtype, "Float");
    EXPECT_EQ(first[i].bucket, "0");
    EXPECT_EQ(first[i].in_elements, first[7].in_elements);
  }
}

TEST_F(TwoRankTraining, ThePlantedHostWorkRunsOnRankOneAndRankZeroWaitsForIt) {
  EXPECT_TRUE(testing::spans_named(rank(0), "planted host work").empty());
  const auto planted = testing::spans_named(rank(1), "planted host work");
  ASSERT_EQ(planted.size(), static_cast<std::size_t>(kSteps));
  constexpr std::int64_t kPlantedNs = std::int64_t{kSteps} * kSlowMs * 1'000'000;
  EXPECT_GE(total_ns(rank(1), "planted host work"), kPlantedNs);
  // Rank 0 reaches every gradient all-reduce about kSlowMs early and waits there.
  const std::int64_t waited_0 = total_ns(rank(0), "wait:all_reduce");
  const std::int64_t waited_1 = total_ns(rank(1), "wait:all_reduce");
  EXPECT_GT(waited_0 - waited_1, kPlantedNs / 2)
      << "rank 0 waited " << waited_0 << " ns, rank 1 " << waited_1 << " ns";
  EXPECT_EQ(testing::spans_named(rank(0), "wait:all_reduce").size(),
            static_cast<std::size_t>(kSteps));
}

TEST(DistributedSwitches, StragglerAndOverlapSwitchesNeedDistributed) {
  const testing::CommandResult result = testing::run_command(
      quoted(testing::built_program("train_fashion_mnist")) + " --slow-rank 1 --slow-ms 5");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("need --distributed"), std::string::npos) << result.output;
}

TEST(DistributedSwitches, AGlobalBatchThatDoesNotSplitOverTheRanksIsBadInput) {
  TSCOPE_REQUIRE_FILE(testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz");
  const testing::CommandResult result = testing::run_command(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun -np 2 --oversubscribe " +
      quoted(testing::built_program("train_fashion_mnist")) + " --data-dir " +
      quoted(testing::fashion_mnist_dir()) + " --distributed --steps 1 --batch-size 63");
  if (result.output.find("mpirun: not found") != std::string::npos) GTEST_SKIP() << result.output;
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("--batch-size 63 is the global batch and must divide evenly over "
                               "the 2 ranks"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace tscope
