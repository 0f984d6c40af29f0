// The three renderers on a real report: JSON that parses and follows the schema, text that leads
// with the most costly finding, Markdown with its sections.

#include "tscope/analyzer/render.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "test_data.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

Report gp100_report() {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  return run_report(trace::read_chrome_json(path), {}, "gp100 \"trace\".json");
}

TEST(RenderTest, JsonReportParsesAndCarriesTheSchemaFields) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const std::string json = render_json(gp100_report());
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.parse(json);
  EXPECT_EQ(std::string_view(root["schema"]), "tscope.analyze/2");
  EXPECT_EQ(std::string_view(root["source"]), "gp100 \"trace\".json");
  EXPECT_TRUE(bool(root["steps"]["whole_trace"]));
  EXPECT_DOUBLE_EQ(double(root["time"]["gpu"]["compute_ns"]), 290'000);
  EXPECT_DOUBLE_EQ(double(root["time"]["gpu"]["by_overlap_events"]), 0);  // all 140 launched
  EXPECT_DOUBLE_EQ(double(root["time"]["gpu"]["window_ns"]), 10'138'000);
  bool saw_pageable = false;
  for (const simdjson::dom::element finding : root["findings"].get_array()) {
    if (std::string_view(finding["kind"]) != "pageable_copy") continue;
    saw_pageable = true;
    EXPECT_DOUBLE_EQ(double(finding["metrics"]["copies"]["value"]), 10);
    EXPECT_EQ(finding["evidence"].get_array().size(), 10u);
  }
  EXPECT_TRUE(saw_pageable);
}

TEST(RenderTest, TextLeadsWithTheMostCostlyFindingAndUsesUnits) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Report report = gp100_report();
  const std::string text = render_text(report);
  ASSERT_FALSE(report.findings.empty());
  const auto first = text.find("1. [");
  ASSERT_NE(first, std::string::npos);
  EXPECT_NE(text.find(report.findings.front().title, first), std::string::npos);
  EXPECT_NE(text.find("Where the time goes (mean step 10.1 ms)"), std::string::npos);
  EXPECT_NE(text.find("GPU compute kernels"), std::string::npos);
  EXPECT_NE(text.find("GPU work is counted in the step whose host call launched it"),
            std::string::npos);
}

TEST(RenderTest, MarkdownHasFindingsAndTimeSections) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const std::string markdown = render_markdown(gp100_report());
  EXPECT_NE(markdown.find("## Findings"), std::string::npos);
  EXPECT_NE(markdown.find("## Where the time goes"), std::string::npos);
  EXPECT_NE(markdown.find("| GPU compute kernels | 290 µs |"), std::string::npos);
}

}  // namespace
}  // namespace tscope::analyzer
