// The multi-rank findings in the viewer of merged ranks, as `tscope view r0.tsc r1.tsc` opens
// them: listed with the trace's own findings, each pointing at the event it is about in the
// merged timeline, so that clicking the straggler finding selects the collective its rank reached
// last, and centres it.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "rank_view.h"
#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/analyzer/steps.h"
#include "tscope/gui/timeline_session.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::gui {
namespace {

constexpr int kExitSkipped = 77;

std::size_t index_of_kind(const std::vector<analyzer::Finding>& findings, std::string_view kind) {
  const auto found = std::find_if(findings.begin(), findings.end(), [&](const auto& finding) {
    return finding.kind.starts_with(kind);
  });
  return static_cast<std::size_t>(found - findings.begin());
}

std::int32_t rank_of_track(const trace::Trace& trace, std::uint32_t track) {
  return trace.processes()[trace.track(track).info().process].rank;
}

std::vector<std::filesystem::path> sampled_ranks() {
  return {testing::shared_data_path("traces/multirank/sampled_rank-0.json.gz"),
          testing::shared_data_path("traces/multirank/sampled_rank-1.json.gz")};
}

TEST(RankFindingsOnKineto, EveryMultiRankFindingPointsAtTheSameEventInTheMergedTimeline) {
  for (const auto& path : sampled_ranks())
    TSCOPE_REQUIRE_FILE(path);
  // The analysis of the ranks' own traces, as `tscope analyze` runs it: evidence per rank.
  const analyzer::MultiRankReport report =
      analyzer::analyze_ranks(analyzer::summarize_trace_files(sampled_ranks(), {}, 1));
  const cli::RankView view = cli::load_rank_view(sampled_ranks(), true);
  ASSERT_TRUE(view.analysis_error.empty()) << view.analysis_error;
  ASSERT_EQ(view.findings.size(), report.findings.size());
  std::size_t with_evidence = 0;
  for (std::size_t index = 0; index < report.findings.size(); ++index) {
    const analyzer::Finding& own = report.findings[index];
    const analyzer::Finding& merged = view.findings[index];
    ASSERT_EQ(merged.kind, own.kind);
    ASSERT_EQ(merged.evidence.size(), own.evidence.size()) << own.kind;
    if (own.evidence.empty()) continue;
    ++with_evidence;
    ASSERT_GE(own.evidence_rank, 0) << own.kind;
    EXPECT_EQ(merged.evidence_rank, -1) << "merged evidence is in the merged trace's numbering";
    const trace::Trace rank_trace =
        trace::load_trace(sampled_ranks().at(static_cast<std::size_t>(own.evidence_rank)));
    const trace::EventRef at_rank = own.evidence.front();
    const trace::EventRef in_merged = merged.evidence.front();
    ASSERT_EQ(in_merged.kind, trace::EventKind::kSpan);
    EXPECT_EQ(rank_of_track(view.trace, in_merged.track), own.evidence_rank) << own.kind;
    const trace::SpanColumns& expected = rank_trace.track(at_rank.track).spans();
    const trace::SpanColumns& found = view.trace.track(in_merged.track).spans();
    EXPECT_EQ(found.start.at(in_merged.index), expected.start.at(at_rank.index)) << own.kind;
    EXPECT_EQ(found.end(in_merged.index), expected.end(at_rank.index)) << own.kind;
    EXPECT_EQ(view.trace.string(found.name.at(in_merged.index)),
              rank_trace.string(expected.name.at(at_rank.index)))
        << own.kind;
  }
  // Exposed communication and load imbalance at least: both ranks communicate and have steps.
  EXPECT_GE(with_evidence, 2u);
}

TEST(RankFindingsOnKineto, TheFindingsPanelListsTheMultiRankFindingsAndJumpsToThem) {
  for (const auto& path : sampled_ranks())
    TSCOPE_REQUIRE_FILE(path);
  cli::RankView view = cli::load_rank_view(sampled_ranks(), true);
  const std::size_t cross_rank = view.findings.size();
  ASSERT_GT(cross_rank, 0u);
  TimelineSession session(std::move(view.trace), "sampled ranks", std::move(view.findings));
  session.set_screen_rect({0, 0, 1200, 800});
  session.wait_for_analysis();
  ASSERT_TRUE(session.report());
  const auto& findings = session.report()->findings;
  const std::size_t exposed = index_of_kind(findings, "exposed_communication");
  ASSERT_LT(exposed, findings.size());
  const trace::EventRef event = findings[exposed].evidence.at(0);
  session.show_finding(exposed);
  ASSERT_TRUE(session.selection());
  EXPECT_EQ(*session.selection(), event);
  const TimeRange range = *session.selection_range();
  EXPECT_LE(session.view().range().begin, range.begin);
  EXPECT_GE(session.view().range().end, range.end);
  EXPECT_NE(session.layout().lane_of_track(event.track), nullptr);
}

// A real two-rank MPI training run recorded as a user does (tests/distributed/record_two_ranks.sh)
// with 30 ms of extra host work planted on rank 1 every step. 24 steps: the analysis names a
// straggler only when its count of last arrivals is no luck, and on a loaded machine a few
// collectives of the planted run still come out the other way.
class PlantedStragglerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = tscope::testing::scratch_path("tscope_rank_findings_straggler");
    std::filesystem::remove_all(folder_);
    const testing::CommandResult recorded =
        testing::run_command("TSCOPE_TWO_RANK_STEPS=24 bash " +
                             testing::quoted(std::filesystem::path(TSCOPE_SOURCE_DIR) /
                                             "tests/distributed/record_two_ranks.sh") +
                             " " + testing::quoted(TSCOPE_BINARY_DIR) + " " +
                             testing::quoted(folder_) + " --slow-rank 1 --slow-ms 30");
    skipped_ = recorded.exit_code == kExitSkipped;
    recorded_ = recorded.exit_code == 0;
    output_ = recorded.output;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(folder_); }

  void SetUp() override {
    if (skipped_) GTEST_SKIP() << "mpirun not found (openmpi-bin)";
    ASSERT_TRUE(recorded_) << output_;
  }

  std::vector<std::filesystem::path> files() const {
    return {folder_ / "r0.tsc", folder_ / "r1.tsc"};
  }

  static std::filesystem::path folder_;
  static bool skipped_;
  static bool recorded_;
  static std::string output_;
};

std::filesystem::path PlantedStragglerTest::folder_;
bool PlantedStragglerTest::skipped_ = false;
bool PlantedStragglerTest::recorded_ = false;
std::string PlantedStragglerTest::output_;

// Where rank 1 arrived last with the largest skew, from the ranks' own traces: each collective
// within both ranks' steps matched by sequence number, its skew the host starts' difference (the
// ranks share one host clock and run no GPU).
trace::TimeNs latest_arrival_of_rank_one(const std::vector<std::filesystem::path>& files) {
  std::map<std::int64_t, trace::TimeNs> rank_zero_arrivals;
  trace::TimeNs latest = -1;
  trace::TimeNs largest_skew = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const trace::Trace trace = trace::load_trace(files.at(static_cast<std::size_t>(rank)));
    const analyzer::StepSet steps = analyzer::find_steps(trace);
    std::vector<std::string> groups;
    for (const analyzer::CollectiveRecord& record : analyzer::find_collectives(trace, groups)) {
      if (record.host_start < steps.steps.front().start ||
          record.host_start >= steps.steps.back().end)
        continue;
      if (rank == 0) {
        rank_zero_arrivals[record.seq] = record.arrival;
        continue;
      }
      const auto peer = rank_zero_arrivals.find(record.seq);
      if (peer == rank_zero_arrivals.end()) continue;
      if (const trace::TimeNs skew = record.arrival - peer->second; skew > largest_skew) {
        largest_skew = skew;
        latest = record.host_start;
      }
    }
  }
  return latest;
}

TEST_F(PlantedStragglerTest, TheStragglerFindingSelectsAndCentresTheLateArrivalOnTheSlowRank) {
  cli::RankView view = cli::load_rank_view(files(), true);
  ASSERT_TRUE(view.analysis_error.empty()) << view.analysis_error;
  TimelineSession session(std::move(view.trace), "two ranks", std::move(view.findings));
  session.set_screen_rect({0, 0, 1200, 800});
  session.wait_for_analysis();
  ASSERT_TRUE(session.report());
  const auto& findings = session.report()->findings;
  const std::size_t straggler = index_of_kind(findings, "straggler");
  ASSERT_LT(straggler, findings.size()) << "no straggler finding";
  EXPECT_EQ(findings[straggler].metric("rank"), 1);

  session.show_finding(straggler);
  ASSERT_TRUE(session.selection());
  const trace::EventRef selected = *session.selection();
  const trace::Trace& merged = session.trace();
  EXPECT_EQ(rank_of_track(merged, selected.track), 1);
  const trace::SpanColumns& spans = merged.track(selected.track).spans();
  EXPECT_EQ(spans.category.at(selected.index), trace::Category::kCommunication);
  EXPECT_TRUE(merged.string(spans.name.at(selected.index)).starts_with("mpi:"));
  EXPECT_EQ(spans.start.at(selected.index), latest_arrival_of_rank_one(files()));
  // Its peer on rank 0, joined by the merge, started earlier: rank 1 is the late arrival.
  const auto peer =
      std::find_if(session.selection_flows().begin(), session.selection_flows().end(),
                   [&](const trace::Flow& flow) { return flow.kind == trace::FlowKind::kOther; });
  ASSERT_NE(peer, session.selection_flows().end());
  const trace::EventRef other = peer->from == selected ? peer->to : peer->from;
  EXPECT_EQ(rank_of_track(merged, other.track), 0);
  EXPECT_LT(merged.track(other.track).spans().start.at(other.index),
            spans.start.at(selected.index));
  // Framed: the view holds the collective, its middle near the view's middle.
  const TimeRange range = *session.selection_range();
  const TimeRange shown = session.view().range();
  EXPECT_LE(shown.begin, range.begin);
  EXPECT_GE(shown.end, range.end);
  const double middle = static_cast<double>(range.begin + range.end) / 2;
  EXPECT_NEAR(middle, static_cast<double>(shown.begin + shown.end) / 2,
              static_cast<double>(shown.length()) * 0.1);
  EXPECT_NE(session.layout().lane_of_track(selected.track), nullptr);
}

}  // namespace
}  // namespace tscope::gui
