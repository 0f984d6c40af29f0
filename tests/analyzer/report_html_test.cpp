// The HTML report: one self-contained page whose charts come from the trace (steps, memory with
// its peak and OOM, top kernels and ops) and whose findings are the report's. That the page
// draws in a browser is checked in tests/viewers (check_report_page.mjs).

#include <gtest/gtest.h>

#include "synthetic_trace.h"
#include "test_data.h"
#include "tscope/analyzer/render.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

std::size_t count(const std::string& text, std::string_view part) {
  std::size_t found = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++found;
  return found;
}

trace::Trace three_steps_with_an_oom() {
  tscope::testing::SyntheticTrace synthetic;
  for (int step = 0; step < 3; ++step) {
    const trace::TimeNs start = step * 10'000'000;
    synthetic.step("step " + std::to_string(step), start, start + 10'000'000, 32);
    synthetic.op("conv2d", start + 1'000'000, start + 8'000'000, {1}, {2}, 1000, 1000, 10'000);
    synthetic.memory(start + 2'000'000, trace::MemoryAction::kAlloc, 0x1000 + step, 1 << 20,
                     "conv2d", "forward");
    synthetic.memory(start + 7'000'000, trace::MemoryAction::kFree, 0x1000 + step, 1 << 20,
                     "conv2d", "forward");
  }
  synthetic.instant("out of memory", 25'000'000, {{"requested_bytes", 1 << 30}});
  return synthetic.finish();
}

TEST(ReportHtmlTest, ThePageDrawsEachStepTheMemoryPeakAndTheOom) {
  const trace::Trace trace = three_steps_with_an_oom();
  const ReportOptions options;
  const ReportCharts charts = compute_report_charts(trace, options);
  ASSERT_EQ(charts.steps.size(), 3u);
  EXPECT_EQ(charts.steps[1].name, "step 1");
  EXPECT_DOUBLE_EQ(charts.memory_peak.live_bytes, 1 << 20);
  ASSERT_EQ(charts.oom_times_ns.size(), 1u);
  // Memory times count from the first memory event, at 2 ms.
  EXPECT_DOUBLE_EQ(charts.oom_times_ns[0], 23'000'000);

  const std::string page = render_html(run_report(trace, options, "three.tsc"), charts);
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  EXPECT_EQ(count(page, "<figure class=\"chart\""), 4u);  // steps, memory, critical path, top ops
  EXPECT_NE(page.find("data-chart=\"steps\""), std::string::npos);
  EXPECT_NE(page.find("data-chart=\"memory\""), std::string::npos);
  EXPECT_NE(page.find("data-chart=\"top-ops\""), std::string::npos);
  // Each step's path: the op (7 of its 10 ms) and the step's own time around it.
  EXPECT_NE(page.find("data-chart=\"critical-path\""), std::string::npos);
  EXPECT_NE(page.find("<td>conv2d</td><td>host compute</td><td>7.00 ms</td><td>70.0%</td>"),
            std::string::npos);
  EXPECT_EQ(count(page, "class=\"marker\""), 1u);  // the OOM line
  EXPECT_NE(page.find("peak 1.00 MiB"), std::string::npos);
  // Self-contained: nothing to fetch, nothing to run.
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

TEST(ReportHtmlTest, NamesAndFindingTextAreEscaped) {
  tscope::testing::SyntheticTrace synthetic;
  synthetic.op("<b>&op</b>", 0, 1'000'000, {}, {}, 0, 0, 0);
  const trace::Trace trace = synthetic.finish();
  const ReportOptions options;
  const std::string page =
      render_html(run_report(trace, options, "a<b>.tsc"), compute_report_charts(trace, options));
  EXPECT_EQ(page.find("<b>&op</b>"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;&amp;op&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("a&lt;b&gt;.tsc"), std::string::npos);
}

TEST(ReportHtmlTest, RealTraceStepsAreSpreadOverTheRun) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::read_chrome_json(path);
  const ReportCharts charts = compute_report_charts(trace, {});
  ASSERT_FALSE(charts.steps.empty());
  EXPECT_EQ(charts.steps.size(), std::min<std::size_t>(charts.step_count, 24));
  for (const StepBreakdown& step : charts.steps) {
    EXPECT_TRUE(step.time.has_gpu);
    EXPECT_GT(step.time.gpu_compute_ns, 0) << step.name;
  }
}

}  // namespace
}  // namespace tscope::analyzer
