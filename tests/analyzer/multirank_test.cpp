// The multi-rank analysis on the real two-rank Kineto pair in ../shared (counted independently
// from the JSON, overlap against Holistic Trace Analysis), on synthetic runs with planted
// stragglers and clock offsets, and on sets of traces that are not one run.

#include "tscope/analyzer/multirank.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "scratch_folder.h"
#include "synthetic_ranks.h"
#include "test_data.h"
#include "tscope/analyzer/render.h"
#include "tscope/trace/trace_builder.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::analyzer {
namespace {

using testing::SyntheticRun;

const Finding* finding_of_kind(const MultiRankReport& report, std::string_view prefix) {
  for (const Finding& finding : report.findings) {
    if (finding.kind.starts_with(prefix)) return &finding;
  }
  return nullptr;
}

MultiRankReport analyze_run(const SyntheticRun& run) {
  std::vector<RankSummary> summaries;
  summaries.reserve(static_cast<std::size_t>(run.world_size));
  for (int rank = 0; rank < run.world_size; ++rank) {
    summaries.push_back(summarize_rank(run.rank_trace(rank), "rank" + std::to_string(rank)));
  }
  return analyze_ranks(std::move(summaries));
}

std::vector<std::filesystem::path> sampled_ranks() {
  return {testing::shared_data_path("traces/multirank/sampled_rank-0.json.gz"),
          testing::shared_data_path("traces/multirank/sampled_rank-1.json.gz")};
}

class SampledRanksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& path : sampled_ranks())
      TSCOPE_REQUIRE_FILE(path);
    report_ = analyze_ranks(summarize_trace_files(sampled_ranks(), {}, 2));
  }
  MultiRankReport report_;
};

TEST_F(SampledRanksTest, FindingsPointAtTheirEventInTheirRanksTrace) {
  const Finding* exposed = finding_of_kind(report_, "exposed_communication");
  ASSERT_NE(exposed, nullptr);
  ASSERT_EQ(exposed->evidence.size(), 1u);
  ASSERT_GE(exposed->evidence_rank, 0);
  const trace::Trace exposed_rank =
      trace::load_trace(sampled_ranks().at(static_cast<std::size_t>(exposed->evidence_rank)));
  const trace::EventRef kernel = exposed->evidence.front();
  EXPECT_EQ(exposed_rank.track(kernel.track).info().kind, trace::TrackKind::kGpuStream);
  EXPECT_TRUE(exposed_rank.string(exposed_rank.track(kernel.track).spans().name.at(kernel.index))
                  .starts_with("nccl"));

  // Load imbalance: the busiest rank's longest step.
  const Finding* imbalance = finding_of_kind(report_, "load_imbalance");
  ASSERT_NE(imbalance, nullptr);
  ASSERT_EQ(imbalance->evidence.size(), 1u);
  const auto busiest = std::max_element(
      report_.ranks.begin(), report_.ranks.end(), [](const RankReport& a, const RankReport& b) {
        return a.steps.mean_ns - a.wait_ns_per_step < b.steps.mean_ns - b.wait_ns_per_step;
      });
  ASSERT_EQ(imbalance->evidence_rank, busiest->rank);
  const trace::Trace busiest_rank =
      trace::load_trace(sampled_ranks().at(static_cast<std::size_t>(busiest->rank)));
  const trace::EventRef step = imbalance->evidence.front();
  const trace::SpanColumns& spans = busiest_rank.track(step.track).spans();
  EXPECT_TRUE(busiest_rank.string(spans.name.at(step.index)).starts_with("ProfilerStep#"));
  EXPECT_DOUBLE_EQ(static_cast<double>(spans.end(step.index) - spans.start.at(step.index)),
                   busiest->steps.max_ns);
}

// Counted with Python over the JSON: per rank 4 nccl:all_reduce, 4 nccl:all_to_all and
// 2 nccl:_all_gather_base ranges (record_param_comms encloses only 8 of them).
TEST_F(SampledRanksTest, EveryRankHasItsTenCollectivesAllMatchedByOrder) {
  ASSERT_EQ(report_.ranks.size(), 2u);
  for (const RankReport& rank : report_.ranks)
    EXPECT_EQ(rank.collectives, 10u) << rank.source;
  EXPECT_EQ(report_.collectives.size(), 10u);
  EXPECT_EQ(report_.unmatched_collectives, 0u);
  EXPECT_FALSE(report_.matched_by_seq);
  std::map<CollectiveOp, std::size_t> by_op;
  for (const MatchedCollective& collective : report_.collectives)
    ++by_op[collective.op];
  EXPECT_EQ(by_op[CollectiveOp::kAllReduce], 4u);
  EXPECT_EQ(by_op[CollectiveOp::kAllToAll], 4u);
  EXPECT_EQ(by_op[CollectiveOp::kAllGather], 2u);
}

TEST_F(SampledRanksTest, RanksComeFromKinetoDistributedInfo) {
  EXPECT_EQ(report_.world_size, 128u);
  EXPECT_EQ(report_.ranks[0].rank, 0);
  EXPECT_EQ(report_.ranks[1].rank, 1);
  EXPECT_EQ(report_.absent_ranks.size(), 126u);
  EXPECT_EQ(report_.backend, "nccl");
}

// hta_reference.json, include_last mode: the whole trace, as ours.
TEST_F(SampledRanksTest, OverlapIsWithinOnePointOfHta) {
  EXPECT_TRUE(report_.ranks[0].overlap.gpu);
  EXPECT_NEAR(report_.ranks[0].overlap.share() * 100, 14.95, 1.0);
  EXPECT_NEAR(report_.ranks[1].overlap.share() * 100, 19.93, 1.0);
}

// Python over the JSON, with the ranks' clocks aligned by the median end difference (170 us):
// rank 1's NCCL kernels start last at 7 of the 10 collectives.
// Rank 1 is last at 7 of the 10 collectives, which one of two equal ranks is with probability
// 2 x P(X >= 7 | X ~ Binomial(10, 1/2)) = 0.34: not a habit, so no straggler is named (HTA's
// potential_stragglers lists both ranks).
TEST_F(SampledRanksTest, RankOneArrivingLastAtSevenOfTenIsNoStraggler) {
  EXPECT_EQ(report_.ranks[1].last_arrivals, 7u);
  EXPECT_NEAR(report_.ranks[1].clock_offset_ns, 170'000, 1'000);
  EXPECT_EQ(finding_of_kind(report_, "straggler"), nullptr);
}

// Python over the JSON: 15 nccl:all_reduce and 6 nccl:broadcast host ranges (the other 21
// nccl: ranges are their gpu_user_annotation copies), each inside a record_param_comms with
// `Collective name` and `In msg nelems`; the first all_reduce moves 2,049,000 floats. Six more
// record_param_comms name "wait" and are no collective.
TEST(MultiRankTest, KinetoCollectivesTakeTheirSizeFromTheEnclosingRecordParamComms) {
  const auto path = testing::shared_data_path("traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const RankSummary summary = summarize_rank(trace::load_trace(path), path.string());
  EXPECT_EQ(summary.rank, 0);
  EXPECT_EQ(summary.world_size, 2);
  std::map<CollectiveOp, std::size_t> by_op;
  for (const CollectiveRecord& record : summary.collectives)
    ++by_op[record.op];
  EXPECT_EQ(summary.collectives.size(), 21u);
  EXPECT_EQ(by_op[CollectiveOp::kAllReduce], 15u);
  EXPECT_EQ(by_op[CollectiveOp::kBroadcast], 6u);
  const auto first_all_reduce = std::find_if(
      summary.collectives.begin(), summary.collectives.end(),
      [](const CollectiveRecord& record) { return record.op == CollectiveOp::kAllReduce; });
  ASSERT_NE(first_all_reduce, summary.collectives.end());
  EXPECT_EQ(first_all_reduce->bytes, 2'049'000u * 4);
  EXPECT_EQ(first_all_reduce->group_size, 2);
  EXPECT_TRUE(first_all_reduce->on_gpu);
}

TEST(MultiRankTest, RecordParamCommsWithoutBackendRangeIsTheCollective) {
  trace::TraceBuilder builder;
  trace::Process process;
  process.name = builder.intern("python");
  trace::TrackInfo thread;
  thread.process = builder.add_process(process);
  thread.thread_id = 1;
  const std::uint32_t track = builder.add_track(thread);
  const auto param_comms = [&](trace::TimeNs start, std::string_view collective) {
    trace::SpanRecord record;
    record.name = builder.intern("record_param_comms");
    record.category = trace::Category::kCpuOp;
    record.start = start;
    record.end = start + 1'000;
    record.args = {
        {builder.intern("Collective name"), trace::StringArg{builder.intern(collective)}},
        {builder.intern("In msg nelems"), std::int64_t{256}},
        {builder.intern("dtype"), trace::StringArg{builder.intern("Float")}}};
    builder.add_span(track, record);
  };
  param_comms(1'000, "allreduce");
  param_comms(5'000, "wait");
  std::vector<std::string> groups;
  const std::vector<CollectiveRecord> found = find_collectives(builder.finalize(), groups);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].op, CollectiveOp::kAllReduce);
  EXPECT_EQ(found[0].bytes, 1024u);
  EXPECT_EQ(found[0].host_start, 1'000);
}

TEST(MultiRankTest, PlantedHostWorkNamesTheSlowRankWithHostOverheadAsCause) {
  SyntheticRun run;
  run.slow_rank = 2;
  run.slow_ns = 3'000'000;
  const MultiRankReport report = analyze_run(run);
  EXPECT_TRUE(report.matched_by_seq);
  EXPECT_EQ(report.collectives.size(), 8u);
  const Finding* straggler = finding_of_kind(report, "straggler");
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(straggler->kind, "straggler.host");
  EXPECT_EQ(straggler->metric("rank"), 2);
  EXPECT_EQ(straggler->metric("last_arrivals"), 8);
  // The others wait the planted 3 ms less their own arrival noise (under 20 us).
  EXPECT_NEAR(straggler->cost.time_per_step_ns, 3'000'000, 25'000);
  EXPECT_NEAR(straggler->metric("excess_host_ns"), 3'000'000, 25'000);
  EXPECT_EQ(straggler->severity, Severity::kHigh);
  EXPECT_EQ(report.findings.front().kind, "straggler.host");
}

TEST(MultiRankTest, BalancedRunNamesNoStraggler) {
  const MultiRankReport report = analyze_run(SyntheticRun{});
  EXPECT_EQ(finding_of_kind(report, "straggler"), nullptr);
  EXPECT_LT(report.step_time.max_ns - report.step_time.min_ns, 1'000);
}

// Each step's all-reduce transfers for 1 ms after the last arrival with no compute alongside; a
// 200 ms broadcast before the first step (processes starting) is not paid per step.
TEST(MultiRankTest, ExposedCommunicationIsMeasuredWithinStepsOnly) {
  SyntheticRun run;
  run.setup_broadcast_ns = 200'000'000;
  const MultiRankReport report = analyze_run(run);
  const Finding* exposed = finding_of_kind(report, "exposed_communication");
  ASSERT_NE(exposed, nullptr);
  EXPECT_NEAR(exposed->cost.time_per_step_ns, 1'000'000, 25'000);
  EXPECT_LT(exposed->cost.share_of_step, 1.0);
  EXPECT_EQ(report.collectives.size(), 9u);
}

TEST(MultiRankTest, CollectiveSkewWaitAndTransferFollowTheArrivals) {
  SyntheticRun run;
  run.world_size = 2;
  run.jitter_ns = 0;
  run.slow_rank = 1;
  run.slow_ns = 2'000'000;
  const MultiRankReport report = analyze_run(run);
  ASSERT_FALSE(report.collectives.empty());
  const MatchedCollective& first = report.collectives.front();
  EXPECT_EQ(first.last_rank, 1);
  EXPECT_DOUBLE_EQ(first.skew_ns, 2'000'000);
  EXPECT_DOUBLE_EQ(first.transfer_ns, 1'000'000);
  // 4 MiB all-reduced over 2 ranks in 1 ms: algbw 4.19 GB/s, busBw x 2(n-1)/n = x 1.
  EXPECT_NEAR(first.bus_bandwidth, 4.194304e9, 1e3);
  EXPECT_DOUBLE_EQ(report.ranks[0].wait_ns_per_step, 2'000'000);
  EXPECT_DOUBLE_EQ(report.ranks[1].wait_ns_per_step, 0);
}

TEST(MultiRankTest, BusBandwidthUsesNcclTestsFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth(CollectiveOp::kAllReduce, 1e9, 1.0, 4), 1.5e9);
  EXPECT_DOUBLE_EQ(bus_bandwidth(CollectiveOp::kAllGather, 1e9, 1.0, 4), 0.75e9);
  EXPECT_DOUBLE_EQ(bus_bandwidth(CollectiveOp::kReduceScatter, 1e9, 1.0, 4), 0.75e9);
  EXPECT_DOUBLE_EQ(bus_bandwidth(CollectiveOp::kBroadcast, 1e9, 1.0, 4), 1e9);
  EXPECT_DOUBLE_EQ(bus_bandwidth(CollectiveOp::kAllToAll, 1e9, 1.0, 4), 0);
}

TEST(MultiRankTest, RanksOnOneHostShareTheClockAndOtherHostsGetAnEstimatedOffset) {
  SyntheticRun run;
  run.hosts = {"node0", "node0", "node1", "node1"};
  run.clock_offsets = {0, 0, 5'000'000, 5'000'000};
  const MultiRankReport report = analyze_run(run);
  EXPECT_FALSE(report.ranks[1].offset_estimated);
  EXPECT_DOUBLE_EQ(report.ranks[1].clock_offset_ns, 0);
  ASSERT_TRUE(report.ranks[2].offset_estimated);
  EXPECT_NEAR(report.ranks[2].clock_offset_ns, 5'000'000, 1);
  EXPECT_NEAR(report.ranks[3].clock_offset_ns, 5'000'000, 1);
  EXPECT_LT(report.ranks[2].clock_uncertainty_ns, 1'000);
  // Aligned, no collective shows the 5 ms as skew.
  for (const MatchedCollective& collective : report.collectives)
    EXPECT_LT(collective.skew_ns, 25'000);
}

TEST(MultiRankTest, AMissingRankIsReportedAndTheRestAnalyzed) {
  const SyntheticRun run;
  std::vector<RankSummary> summaries;
  for (const int rank : {0, 1, 3})
    summaries.push_back(summarize_rank(run.rank_trace(rank), "r" + std::to_string(rank)));
  const MultiRankReport report = analyze_ranks(std::move(summaries));
  EXPECT_EQ(report.absent_ranks, std::vector<int>{2});
  EXPECT_EQ(report.collectives.size(), 8u);
  EXPECT_NE(render_text(report).find("absent: 2"), std::string::npos);
}

TEST(MultiRankTest, OneRankHasNothingToMatchAndNoStraggler) {
  const SyntheticRun run;
  std::vector<RankSummary> summaries;
  summaries.push_back(summarize_rank(run.rank_trace(0), "r0"));
  const MultiRankReport report = analyze_ranks(std::move(summaries));
  EXPECT_EQ(report.ranks.at(0).collectives, 8u);
  EXPECT_TRUE(report.collectives.empty());
  EXPECT_EQ(report.unmatched_collectives, 0u);
  EXPECT_EQ(finding_of_kind(report, "straggler"), nullptr);
}

TEST(MultiRankTest, TracesOfDifferentRunsAreRejected) {
  SyntheticRun first;
  SyntheticRun second;
  second.run_id = "job-2";
  std::vector<RankSummary> summaries;
  summaries.push_back(summarize_rank(first.rank_trace(0), "a.tsc"));
  summaries.push_back(summarize_rank(second.rank_trace(1), "b.tsc"));
  EXPECT_THROW(
      {
        try {
          analyze_ranks(std::move(summaries));
        } catch (const RankSetError& error) {
          EXPECT_NE(std::string(error.what()).find("different runs"), std::string::npos)
              << error.what();
          throw;
        }
      },
      RankSetError);
}

TEST(MultiRankTest, DifferentWorldSizesAreRejected) {
  SyntheticRun four;
  SyntheticRun eight;
  eight.world_size = 8;
  std::vector<RankSummary> summaries;
  summaries.push_back(summarize_rank(four.rank_trace(0), "a.tsc"));
  summaries.push_back(summarize_rank(eight.rank_trace(1), "b.tsc"));
  EXPECT_THROW(analyze_ranks(std::move(summaries)), RankSetError);
}

class RankSetCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = tscope::testing::scratch_path(
        std::string("tscope_rank_set_") +
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  // `tscope export --chrome` of the sampled ranks' folder, parsed; empty, with a failure, if the
  // command fails.
  std::optional<simdjson::dom::element> export_sampled_ranks() {
    const auto out = folder_ / "ranks.json";
    const testing::CommandResult result =
        testing::run_tscope("export --chrome " + testing::quoted(out) + " " +
                            testing::quoted(sampled_ranks()[0].parent_path()));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    if (result.exit_code != 0) return std::nullopt;
    return parser_.load(out.string()).value();
  }
  std::filesystem::path folder_;
  simdjson::dom::parser parser_;
};

// The real rank 0 converted to .tsc twice: a set with two traces of one rank.
TEST_F(RankSetCommandTest, DuplicateRanksExitTwoNamingBothFiles) {
  const auto source = sampled_ranks().front();
  TSCOPE_REQUIRE_FILE(source);
  const trace::Trace rank0 = trace::load_trace(source);
  trace::save_trace(rank0, folder_ / "a.tsc");
  trace::save_trace(rank0, folder_ / "b.tsc");
  const testing::CommandResult result = testing::run_tscope("analyze " + testing::quoted(folder_));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("duplicate rank 0"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("a.tsc"), std::string::npos) << result.output;
}

TEST_F(RankSetCommandTest, MixedRunsExitTwoWithAClearMessage) {
  SyntheticRun first;
  SyntheticRun second;
  second.run_id = "job-2";
  trace::save_trace(first.rank_trace(0), folder_ / "r0.tsc");
  trace::save_trace(second.rank_trace(1), folder_ / "r1.tsc");
  const testing::CommandResult result = testing::run_tscope(
      "analyze " + testing::quoted(folder_ / "r0.tsc") + " " + testing::quoted(folder_ / "r1.tsc"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("traces of different runs mixed"), std::string::npos)
      << result.output;
}

TEST_F(RankSetCommandTest, FolderOfRanksPrintsJsonWithTheStraggler) {
  SyntheticRun run;
  run.slow_rank = 3;
  run.slow_ns = 2'000'000;
  for (int rank = 0; rank < run.world_size; ++rank) {
    trace::save_trace(run.rank_trace(rank), folder_ / ("rank-" + std::to_string(rank) + ".tsc"));
  }
  const testing::CommandResult result =
      testing::run_tscope("analyze --format json " + testing::quoted(folder_), "2>/dev/null");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\"schema\":\"tscope.analyze.ranks/1\""), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("\"kind\":\"straggler.host\""), std::string::npos) << result.output;
}

TEST_F(RankSetCommandTest, FolderWithoutTracesExitsTwo) {
  const testing::CommandResult result = testing::run_tscope("analyze " + testing::quoted(folder_));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("no trace files"), std::string::npos) << result.output;
}

// Process names and pids read back with simdjson: one process per rank's host and GPU rows.
TEST_F(RankSetCommandTest, ChromeExportOfTwoRanksHasAProcessPerRank) {
  for (const auto& path : sampled_ranks())
    TSCOPE_REQUIRE_FILE(path);
  const std::optional<simdjson::dom::element> root = export_sampled_ranks();
  ASSERT_TRUE(root);
  std::map<std::int64_t, std::string> process_names;
  std::map<std::int64_t, std::size_t> spans_by_pid;
  for (const simdjson::dom::element event : (*root)["traceEvents"].get_array()) {
    const std::string_view phase = event["ph"].get_string().value_unsafe();
    const std::int64_t pid = event["pid"].get_int64().value_unsafe();
    if (phase == "M" && event["name"].get_string().value_unsafe() == "process_name") {
      process_names[pid] = std::string(event["args"]["name"].get_string().value_unsafe());
    }
    if (phase == "X") ++spans_by_pid[pid];
  }
  EXPECT_EQ(process_names[1000], "rank 0 pyper:trainer:0:0");
  EXPECT_EQ(process_names[1500], "rank 0 GPU 0");
  EXPECT_EQ(process_names[2000], "rank 1 pyper:trainer:0:1");
  EXPECT_EQ(process_names[2501], "rank 1 GPU 1");
  std::size_t exported = 0;
  for (const auto& [pid, count] : spans_by_pid)
    exported += count;
  std::size_t loaded = 0;
  for (const auto& path : sampled_ranks())
    loaded += trace::load_trace(path).counts().spans;
  EXPECT_EQ(exported, loaded);
}

// The merge joins each matched collective across ranks with a flow: Chrome arrows of category
// "other", from rank 0's `nccl:*` range to rank 1's range of the same name, one per collective.
TEST_F(RankSetCommandTest, ChromeExportOfTwoRanksJoinsTheirCollectives) {
  for (const auto& path : sampled_ranks())
    TSCOPE_REQUIRE_FILE(path);
  const std::optional<simdjson::dom::element> root = export_sampled_ranks();
  ASSERT_TRUE(root);
  // Spans by (pid, tid): start, end and name. A flow's end binds to the innermost span open at its
  // time on its row.
  struct Span {
    double start = 0;
    double end = 0;
    std::string name;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Span>> spans;
  std::map<std::uint64_t, std::tuple<std::int64_t, std::int64_t, double>> starts, finishes;
  for (const simdjson::dom::element event : (*root)["traceEvents"].get_array()) {
    const std::string_view phase = event["ph"].get_string().value_unsafe();
    if (phase != "X" && phase != "s" && phase != "f") continue;
    const auto place =
        std::tuple(event["pid"].get_int64().value_unsafe(), event["tid"].get_int64().value_unsafe(),
                   event["ts"].get_double().value_unsafe());
    if (phase == "X") {
      const double start = std::get<2>(place);
      spans[{std::get<0>(place), std::get<1>(place)}].push_back(
          {start, start + event["dur"].get_double().value_unsafe(),
           std::string(event["name"].get_string().value_unsafe())});
    } else if (event["cat"].get_string().value_unsafe() == "other") {
      (phase == "s" ? starts : finishes)[event["id"].get_uint64().value_unsafe()] = place;
    }
  }
  const auto bound_name = [&](const std::tuple<std::int64_t, std::int64_t, double>& place) {
    const Span* innermost = nullptr;
    for (const Span& span : spans[{std::get<0>(place), std::get<1>(place)}]) {
      const double time = std::get<2>(place);
      if (span.start <= time && time <= span.end &&
          (innermost == nullptr || span.start >= innermost->start)) {
        innermost = &span;
      }
    }
    return innermost == nullptr ? std::string() : innermost->name;
  };
  ASSERT_EQ(starts.size(), 10u);
  for (const auto& [id, from] : starts) {
    const auto to = finishes.at(id);
    EXPECT_EQ(std::get<0>(from) / 1000, 1);  // rank 0's pids are 1000 and up
    EXPECT_EQ(std::get<0>(to) / 1000, 2);
    const std::string name = bound_name(from);
    EXPECT_TRUE(name.starts_with("nccl:")) << name;
    EXPECT_EQ(bound_name(to), name);
  }
}

}  // namespace
}  // namespace tscope::analyzer
