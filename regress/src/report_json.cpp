// The JSON report (schema "tscope.bench-compare/1", documented in docs/regression.md).

#include "tscope/regress/report.h"
#include "tscope/report/json_writer.h"

namespace tscope::regress {
namespace {

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

void write_sample(JsonWriter& json, std::string_view name, double median, std::size_t repetitions) {
  json.key(name);
  json.begin_object();
  json.field("median", median);
  json.field("repetitions", repetitions);
  json.end_object();
}

void write_benchmark(JsonWriter& json, const BenchmarkComparison& comparison) {
  json.begin_object();
  json.field("name", comparison.name);
  json.key("reference");
  if (comparison.reference.empty()) {
    json.null();
  } else {
    json.value(comparison.reference);
  }
  write_sample(json, "base", comparison.base_median, comparison.base_count);
  write_sample(json, "new", comparison.new_median, comparison.new_count);
  json.field("change", comparison.change);
  json.field("slowdown", comparison.slowdown);
  json.field("threshold", comparison.threshold);
  json.optional_field("u_test", comparison.u_test, [&](const auto& u_test) {
    json.begin_object();
    json.field("u", u_test.u_statistic);
    json.field("p_value", u_test.p_value);
    json.field("method", method_name(u_test.method));
    json.end_object();
  });
  json.field("verdict", verdict_name(comparison.verdict));
  json.end_object();
}

}  // namespace

std::string render_json(const ComparisonReport& report) {
  JsonWriter json(JsonLayout::kIndented);
  json.begin_object();
  json.field("schema", "tscope.bench-compare/1");
  json.field("base", report.base_source.string());
  json.field("new", report.new_source.string());
  json.key("metric");
  json.begin_object();
  json.field("name", report.metric.name);
  json.field("higher_is_better", report.metric.higher_is_better);
  json.end_object();
  json.field("alpha", report.alpha);
  json.field("regressed", report.regressed());
  json.key("benchmarks");
  json.begin_array();
  for (const BenchmarkComparison& comparison : report.benchmarks)
    write_benchmark(json, comparison);
  json.end_array();
  json.field("geomean_change", report.geomean_change);
  json.field("added", report.added);
  json.field("removed", report.removed);
  json.field("warnings", report.warnings);
  json.end_object();
  return json.str() + "\n";
}

}  // namespace tscope::regress
