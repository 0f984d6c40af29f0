// The three renderings of a comparison: terminal table, Markdown, and JSON that parses back
// with the documented schema.

#include "tscope/regress/report.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "results_builder.h"

namespace tscope::regress {
namespace {

using testing::results_of;

ComparisonReport sample_report() {
  const std::vector<double> base{100, 101, 99, 102, 98};
  const std::vector<double> slower{150, 151, 149, 152, 148};
  return compare_results(
      results_of("base.json", {{"BM_Slower", base}, {"BM_Same", base}, {"BM_Gone", base}}),
      results_of("new.json", {{"BM_Slower", slower}, {"BM_Same", base}, {"BM_Added", base}}),
      metric_named("real_time"), {});
}

TEST(ReportTest, TextTableHasOneRowPerBenchmarkAndAGeomeanRow) {
  const std::string text = render_text(sample_report());
  EXPECT_NE(text.find("Benchmark"), std::string::npos);
  EXPECT_NE(text.find("BM_Slower  100 ns  150 ns  +50.00%   0.0079  regressed"), std::string::npos)
      << text;
  EXPECT_NE(text.find("geomean"), std::string::npos);
  EXPECT_NE(text.find("added (only in new): BM_Added"), std::string::npos);
  EXPECT_NE(text.find("removed (only in base): BM_Gone"), std::string::npos);
  EXPECT_NE(text.find("result: 1 regressed"), std::string::npos);
}

TEST(ReportTest, MarkdownLeadsWithTheVerdictAndBoldsRegressions) {
  const std::string markdown = render_markdown(sample_report());
  EXPECT_EQ(markdown.rfind("### :x: 1 benchmark regressed", 0), 0u) << markdown;
  EXPECT_NE(markdown.find("| Benchmark | Base | New | Change | p-value | Verdict |"),
            std::string::npos);
  EXPECT_NE(markdown.find("| BM_Slower | 100 ns | 150 ns | +50.00% | 0.0079 | **regressed** |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("- added: `BM_Added`"), std::string::npos);
}

TEST(ReportTest, JsonFollowsTheDocumentedSchema) {
  const std::string json = render_json(sample_report());
  simdjson::dom::parser parser;
  simdjson::dom::element document;
  ASSERT_EQ(parser.parse(json).get(document), simdjson::SUCCESS) << json;
  EXPECT_EQ(std::string_view(document["schema"]), "tscope.bench-compare/1");
  EXPECT_TRUE(bool(document["regressed"]));
  EXPECT_EQ(std::string_view(document["metric"]["name"]), "real_time");
  simdjson::dom::array benchmarks = document["benchmarks"];
  ASSERT_EQ(benchmarks.size(), 2u);
  simdjson::dom::element slower = benchmarks.at(0);
  EXPECT_EQ(std::string_view(slower["name"]), "BM_Slower");
  EXPECT_EQ(std::string_view(slower["verdict"]), "regressed");
  EXPECT_DOUBLE_EQ(double(slower["base"]["median"]), 100.0);
  EXPECT_EQ(int64_t(slower["new"]["repetitions"]), 5);
  EXPECT_DOUBLE_EQ(double(slower["change"]), 0.5);
  EXPECT_DOUBLE_EQ(double(slower["threshold"]), 0.05);
  EXPECT_EQ(std::string_view(slower["u_test"]["method"]), "exact");
  EXPECT_NEAR(double(slower["u_test"]["p_value"]), 2.0 / 252.0, 1e-12);
  EXPECT_TRUE(slower["reference"].is_null());
  EXPECT_EQ(std::string_view(document["added"].at(0)), "BM_Added");
  EXPECT_EQ(std::string_view(document["removed"].at(0)), "BM_Gone");
}

TEST(ReportTest, JsonEscapesNamesWithQuotes) {
  const ComparisonReport report = compare_results(
      results_of("b", {{"BM_\"quoted\"\\name", {1, 2}}}),
      results_of("n", {{"BM_\"quoted\"\\name", {1, 2}}}), metric_named("real_time"), {});
  simdjson::dom::parser parser;
  simdjson::dom::element document;
  ASSERT_EQ(parser.parse(render_json(report)).get(document), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(document["benchmarks"].at(0)["name"]), "BM_\"quoted\"\\name");
}

TEST(ReportTest, FormatNamesAreTextMdAndJson) {
  EXPECT_EQ(report_format_named("md"), ReportFormat::kMarkdown);
  EXPECT_EQ(report_format_named("json"), ReportFormat::kJson);
  EXPECT_EQ(report_format_named("text"), ReportFormat::kText);
  EXPECT_FALSE(report_format_named("html").has_value());
}

}  // namespace
}  // namespace tscope::regress
