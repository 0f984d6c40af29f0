// Valid but hostile traces (tests/support/hostile_traces.h) for the analyzer: the full report
// (every analysis) must come back without a crash, in bounded time, with finite numbers and no
// share above 100% in any rendering.

#include "hostile_traces.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <regex>
#include <string>

#include "tscope/analyzer/render.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/errors.h"

namespace tscope {
namespace {

void expect_finite_share(double value, const std::string& what) {
  EXPECT_TRUE(std::isfinite(value)) << what << " = " << value;
  EXPECT_GE(value, 0.0) << what;
  EXPECT_LE(value, 1.0 + 1e-9) << what;
}

// Every number of the report finite, every part of the step no longer than the step, every share
// of a step within 0..1, and no "nan", "inf" or share above 100% in the text, Markdown and JSON.
void expect_sane(const analyzer::Report& report) {
  if (report.time()) {
    const analyzer::TimeBreakdown& time = *report.time();
    EXPECT_TRUE(std::isfinite(time.step_ns) && time.step_ns >= 0) << time.step_ns;
    for (const double part :
         {time.gpu_compute_ns, time.gpu_communication_ns, time.gpu_copy_ns, time.gpu_memset_ns,
          time.gpu_idle_host_wait_ns, time.gpu_idle_kernel_wait_ns, time.gpu_idle_other_ns,
          time.host_data_wait_ns, time.host_sync_ns, time.host_optimizer_ns, time.host_ops_ns,
          time.host_other_ns}) {
      EXPECT_TRUE(std::isfinite(part)) << part;
      EXPECT_GE(part, 0.0);
      EXPECT_LE(part, time.step_ns * (1 + 1e-9) + 1) << "a part longer than the step";
    }
  }
  for (const analyzer::Finding& finding : report.findings) {
    expect_finite_share(finding.cost.share_of_step, finding.title + ": share_of_step");
    EXPECT_TRUE(std::isfinite(finding.cost.time_per_step_ns)) << finding.title;
    EXPECT_TRUE(std::isfinite(finding.estimated_gain_ns_per_step)) << finding.title;
    for (const analyzer::Metric& metric : finding.metrics)
      EXPECT_TRUE(std::isfinite(metric.value)) << finding.title << ": " << metric.name;
  }
  const std::regex not_a_number(R"(\b-?(nan|inf|infinity)\b)", std::regex::icase);
  const std::regex percentage(R"((\d+(?:\.\d+)?)\s?%)");
  for (const std::string& rendered :
       {analyzer::render_text(report), analyzer::render_markdown(report),
        analyzer::render_json(report)}) {
    EXPECT_FALSE(std::regex_search(rendered, not_a_number)) << rendered;
    for (auto match = std::sregex_iterator(rendered.begin(), rendered.end(), percentage);
         match != std::sregex_iterator(); ++match) {
      EXPECT_LE(std::stod((*match)[1]), 100.0) << match->str() << " in\n" << rendered;
    }
  }
}

analyzer::Report analyze_in_bounded_time(const trace::Trace& trace) {
  const auto start = std::chrono::steady_clock::now();
  analyzer::Report report = analyzer::run_report(trace, {}, "hostile");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(120));
  return report;
}

TEST(HostileTraces, KinetoJsonWithNegativeDurationsOverlapsAndDuplicateCorrelations) {
  expect_sane(analyze_in_bounded_time(
      testing::kineto_with_negative_durations_overlaps_and_duplicate_correlations()));
}

TEST(HostileTraces, TimestampsAndMemoryAtTheLimitsOfTheTimeRange) {
  expect_sane(analyze_in_bounded_time(testing::at_the_limits_of_the_time_range()));
}

TEST(HostileTraces, OneSpanAcrossTheWholeTimeRange) {
  expect_sane(analyze_in_bounded_time(testing::one_span_across_the_time_range()));
}

TEST(HostileTraces, TheBuilderRefusesTimesBeyondTheTimeRange) {
  testing::HostileTraceBuilder beyond;
  const std::uint32_t track = beyond.track(trace::TrackKind::kHostThread, "main", 1);
  EXPECT_THROW(beyond.span(track, "before", trace::Category::kCpuOp, -trace::kMaxAbsTimeNs - 1, 0),
               trace::TraceError);
  EXPECT_THROW(beyond.span(track, "after", trace::Category::kCpuOp, 0, trace::kMaxAbsTimeNs + 1),
               trace::TraceError);
}

TEST(HostileTraces, AMillionTracks) {
  const trace::Trace trace = testing::with_a_million_tracks();
  ASSERT_EQ(trace.tracks().size(), 1'000'000u);
  expect_sane(analyze_in_bounded_time(trace));
}

}  // namespace
}  // namespace tscope
