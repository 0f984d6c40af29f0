// The JSON report (schema "tscope.bench-compare/1", documented in docs/regression.md).

#include <fmt/format.h>

#include "json_text.h"
#include "tscope/regress/report.h"

namespace tscope::regress {
namespace {

std::string json_optional(const std::optional<double>& value) {
  return value ? json_number(*value) : "null";
}

std::string_view method_name(MannWhitneyMethod method) {
  switch (method) {
    case MannWhitneyMethod::kExact:
      return "exact";
    case MannWhitneyMethod::kAsymptotic:
      return "asymptotic";
    case MannWhitneyMethod::kAuto:
      return "auto";
  }
  return "auto";
}

std::string benchmark_json(const BenchmarkComparison& comparison) {
  const std::string u_test = comparison.u_test
                                 ? fmt::format(R"({{"u": {}, "p_value": {}, "method": "{}"}})",
                                               json_number(comparison.u_test->u_statistic),
                                               json_number(comparison.u_test->p_value),
                                               method_name(comparison.u_test->method))
                                 : "null";
  return fmt::format(
      R"({{"name": {}, "reference": {}, "base": {{"median": {}, "repetitions": {}}}, )"
      R"("new": {{"median": {}, "repetitions": {}}}, "change": {}, "slowdown": {}, "threshold": {}, )"
      R"("u_test": {}, "verdict": "{}"}})",
      json_string(comparison.name),
      comparison.reference.empty() ? "null" : json_string(comparison.reference),
      json_number(comparison.base_median), comparison.base_count,
      json_number(comparison.new_median), comparison.new_count, json_number(comparison.change),
      json_number(comparison.slowdown), json_optional(comparison.threshold), u_test,
      verdict_name(comparison.verdict));
}

}  // namespace

std::string render_json(const ComparisonReport& report) {
  std::string json = "{\n  \"schema\": \"tscope.bench-compare/1\",\n";
  json += fmt::format("  \"base\": {},\n  \"new\": {},\n", json_string(report.base_source.string()),
                      json_string(report.new_source.string()));
  json += fmt::format("  \"metric\": {{\"name\": {}, \"higher_is_better\": {}}},\n",
                      json_string(report.metric.name), report.metric.higher_is_better);
  json += fmt::format("  \"alpha\": {},\n  \"regressed\": {},\n", json_number(report.alpha),
                      report.regressed());
  json += "  \"benchmarks\": [";
  for (std::size_t i = 0; i < report.benchmarks.size(); ++i) {
    json += (i == 0 ? "\n    " : ",\n    ") + benchmark_json(report.benchmarks[i]);
  }
  json += report.benchmarks.empty() ? "],\n" : "\n  ],\n";
  json += fmt::format("  \"geomean_change\": {},\n", json_optional(report.geomean_change));
  json += fmt::format("  \"added\": {},\n  \"removed\": {},\n  \"warnings\": {}\n}}\n",
                      json_string_array(report.added), json_string_array(report.removed),
                      json_string_array(report.warnings));
  return json;
}

}  // namespace tscope::regress
