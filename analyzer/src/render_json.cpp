#include "tscope/analyzer/json_writer.h"
#include "tscope/analyzer/render.h"

namespace tscope::analyzer {
namespace {

// Bumped only when a field changes meaning or disappears; new fields keep the version.
constexpr std::string_view kSchema = "tscope.analyze/1";

void write_name_stats(JsonWriter& json, const std::vector<NameStats>& entries) {
  json.begin_array();
  for (const NameStats& entry : entries) {
    json.begin_object();
    json.key("name");
    json.value(entry.name);
    json.key("count");
    json.value(entry.count);
    json.key("total_ns");
    json.value(entry.total_ns);
    json.key("mean_ns");
    json.value(entry.mean_ns);
    json.key("p50_ns");
    json.value(entry.p50_ns);
    json.key("p95_ns");
    json.value(entry.p95_ns);
    json.end_object();
  }
  json.end_array();
}

void write_fields(JsonWriter& json, std::initializer_list<std::pair<std::string_view, double>> fields) {
  json.begin_object();
  for (const auto& [name, value] : fields) {
    json.key(name);
    json.value(value);
  }
  json.end_object();
}

void write_time(JsonWriter& json, const TimeBreakdown& time) {
  json.begin_object();
  json.key("step_ns");
  json.value(time.step_ns);
  json.key("gpu");
  if (time.has_gpu) {
    write_fields(json, {{"compute_ns", time.gpu_compute_ns},
                        {"communication_ns", time.gpu_communication_ns},
                        {"copy_ns", time.gpu_copy_ns},
                        {"memset_ns", time.gpu_memset_ns},
                        {"idle_host_wait_ns", time.gpu_idle_host_wait_ns},
                        {"idle_kernel_wait_ns", time.gpu_idle_kernel_wait_ns},
                        {"idle_other_ns", time.gpu_idle_other_ns}});
  } else {
    json.null();
  }
  json.key("host");
  write_fields(json, {{"data_wait_ns", time.host_data_wait_ns},
                      {"sync_ns", time.host_sync_ns},
                      {"optimizer_ns", time.host_optimizer_ns},
                      {"ops_ns", time.host_ops_ns},
                      {"other_ns", time.host_other_ns}});
  json.end_object();
}

void write_finding(JsonWriter& json, const Finding& finding) {
  json.begin_object();
  json.key("kind");
  json.value(finding.kind);
  json.key("severity");
  json.value(to_string(finding.severity));
  json.key("title");
  json.value(finding.title);
  json.key("cost");
  json.begin_object();
  json.key("time_per_step_ns");
  json.value(finding.cost.time_per_step_ns);
  json.key("share_of_step");
  json.value(finding.cost.share_of_step);
  json.key("bytes");
  json.value(finding.cost.bytes);
  json.end_object();
  json.key("estimated_gain");
  json.begin_object();
  json.key("time_per_step_ns");
  json.value(finding.estimated_gain_ns_per_step);
  json.key("bytes");
  json.value(finding.estimated_gain_bytes);
  json.end_object();
  json.key("evidence");
  json.begin_array();
  for (const trace::EventRef& ref : finding.evidence) {
    json.begin_object();
    json.key("kind");
    json.value(trace::to_string(ref.kind));
    json.key("track");
    json.value(static_cast<std::uint64_t>(ref.track));
    json.key("index");
    json.value(static_cast<std::uint64_t>(ref.index));
    json.key("ref");
    json.value(ref.pack());
    json.end_object();
  }
  json.end_array();
  json.key("explanation");
  json.value(finding.explanation);
  json.key("recommendation");
  json.value(finding.recommendation);
  json.key("metrics");
  json.begin_object();
  for (const Metric& metric : finding.metrics) {
    json.key(metric.name);
    json.begin_object();
    json.key("value");
    json.value(metric.value);
    json.key("unit");
    json.value(metric.unit);
    json.end_object();
  }
  json.end_object();
  json.end_object();
}

}  // namespace

std::string render_json(const Report& report) {
  JsonWriter json;
  json.begin_object();
  json.key("schema");
  json.value(kSchema);
  json.key("source");
  json.value(report.source);
  json.key("steps");
  json.begin_object();
  json.key("count");
  json.value(static_cast<std::uint64_t>(report.steps.count));
  json.key("whole_trace");
  json.value(report.steps.whole_trace);
  json.key("mean_ns");
  json.value(report.steps.mean_ns);
  json.key("min_ns");
  json.value(report.steps.min_ns);
  json.key("max_ns");
  json.value(report.steps.max_ns);
  json.key("stddev_ns");
  json.value(report.steps.stddev_ns);
  json.end_object();
  json.key("time");
  if (report.time) {
    write_time(json, *report.time);
  } else {
    json.null();
  }
  json.key("breakdown");
  if (report.breakdown) {
    json.begin_object();
    json.key("ops");
    write_name_stats(json, report.breakdown->ops);
    json.key("kernels");
    write_name_stats(json, report.breakdown->kernels);
    json.end_object();
  } else {
    json.null();
  }
  json.key("findings");
  json.begin_array();
  for (const Finding& finding : report.findings) write_finding(json, finding);
  json.end_array();
  json.end_object();
  return json.str() + "\n";
}

}  // namespace tscope::analyzer
