// The JSON report (schema "tscope.bench-compare/1", documented in docs/regression.md).

#include <cmath>

#include <fmt/format.h>

#include "tscope/regress/report.h"

namespace tscope::regress {
namespace {

std::string json_string(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\t': quoted += "\\t"; break;
      case '\r': quoted += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          quoted += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "\"";
}

// JSON has no infinity or NaN; an unbounded slowdown (a rate that fell to zero) becomes null.
std::string json_number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : "null"; }

std::string json_optional(const std::optional<double>& value) { return value ? json_number(*value) : "null"; }

std::string json_string_array(const std::vector<std::string>& items) {
  std::string array = "[";
  for (std::size_t i = 0; i < items.size(); ++i) array += (i == 0 ? "" : ", ") + json_string(items[i]);
  return array + "]";
}

std::string_view method_name(MannWhitneyMethod method) {
  switch (method) {
    case MannWhitneyMethod::kExact: return "exact";
    case MannWhitneyMethod::kAsymptotic: return "asymptotic";
    case MannWhitneyMethod::kAuto: return "auto";
  }
  return "auto";
}

std::string benchmark_json(const BenchmarkComparison& comparison) {
  const std::string u_test =
      comparison.u_test
          ? fmt::format(R"({{"u": {}, "p_value": {}, "method": "{}"}})", json_number(comparison.u_test->u_statistic),
                        json_number(comparison.u_test->p_value), method_name(comparison.u_test->method))
          : "null";
  return fmt::format(
      R"({{"name": {}, "reference": {}, "base": {{"median": {}, "repetitions": {}}}, )"
      R"("new": {{"median": {}, "repetitions": {}}}, "change": {}, "slowdown": {}, "threshold": {}, )"
      R"("u_test": {}, "verdict": "{}"}})",
      json_string(comparison.name), comparison.reference.empty() ? "null" : json_string(comparison.reference),
      json_number(comparison.base_median), comparison.base_count, json_number(comparison.new_median),
      comparison.new_count, json_number(comparison.change), json_number(comparison.slowdown),
      json_optional(comparison.threshold), u_test, verdict_name(comparison.verdict));
}

}  // namespace

std::string render_json(const ComparisonReport& report) {
  std::string json = "{\n  \"schema\": \"tscope.bench-compare/1\",\n";
  json += fmt::format("  \"base\": {},\n  \"new\": {},\n", json_string(report.base_source.string()),
                      json_string(report.new_source.string()));
  json += fmt::format("  \"metric\": {{\"name\": {}, \"higher_is_better\": {}}},\n", json_string(report.metric.name),
                      report.metric.higher_is_better);
  json += fmt::format("  \"alpha\": {},\n  \"regressed\": {},\n", json_number(report.alpha), report.regressed());
  json += "  \"benchmarks\": [";
  for (std::size_t i = 0; i < report.benchmarks.size(); ++i) {
    json += (i == 0 ? "\n    " : ",\n    ") + benchmark_json(report.benchmarks[i]);
  }
  json += report.benchmarks.empty() ? "],\n" : "\n  ],\n";
  json += fmt::format("  \"geomean_change\": {},\n", json_optional(report.geomean_change));
  json += fmt::format("  \"added\": {},\n  \"removed\": {},\n  \"warnings\": {}\n}}\n", json_string_array(report.added),
                      json_string_array(report.removed), json_string_array(report.warnings));
  return json;
}

}  // namespace tscope::regress
