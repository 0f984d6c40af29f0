#include "tscope/analyzer/render.h"
#include "tscope/report/json_writer.h"

namespace tscope::analyzer {
namespace {

// Bumped only when a field changes meaning or disappears; new fields keep the version.
constexpr std::string_view kSchema = "tscope.analyze/1";
constexpr std::string_view kRanksSchema = "tscope.analyze.ranks/1";

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

void write_fields(JsonWriter& json,
                  std::initializer_list<std::pair<std::string_view, double>> fields) {
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
  for (const Finding& finding : report.findings)
    write_finding(json, finding);
  json.end_array();
  json.end_object();
  return json.str() + "\n";
}

std::string render_json(const MultiRankReport& report) {
  JsonWriter json;
  json.begin_object();
  json.key("schema");
  json.value(kRanksSchema);
  json.key("world_size");
  json.value(static_cast<std::uint64_t>(report.world_size));
  json.key("absent_ranks");
  json.begin_array();
  for (const int rank : report.absent_ranks)
    json.value(static_cast<std::int64_t>(rank));
  json.end_array();
  json.key("run_id");
  json.value(report.run_id);
  json.key("backend");
  json.value(report.backend);
  json.key("matched_by_seq");
  json.value(report.matched_by_seq);
  json.key("unmatched_collectives");
  json.value(static_cast<std::uint64_t>(report.unmatched_collectives));
  json.key("step_time");
  write_fields(json, {{"min_ns", report.step_time.min_ns},
                      {"median_ns", report.step_time.median_ns},
                      {"max_ns", report.step_time.max_ns}});
  json.key("ranks");
  json.begin_array();
  for (const RankReport& rank : report.ranks) {
    json.begin_object();
    json.key("rank");
    json.value(static_cast<std::int64_t>(rank.rank));
    json.key("source");
    json.value(rank.source);
    json.key("host");
    json.value(rank.host);
    json.key("steps");
    json.value(static_cast<std::uint64_t>(rank.steps.count));
    json.key("mean_step_ns");
    json.value(rank.steps.mean_ns);
    json.key("collectives");
    json.value(static_cast<std::uint64_t>(rank.collectives));
    json.key("last_arrivals");
    json.value(static_cast<std::uint64_t>(rank.last_arrivals));
    json.key("wait_ns_per_step");
    json.value(rank.wait_ns_per_step);
    json.key("others_wait_ns_per_step");
    json.value(rank.others_wait_ns_per_step);
    json.key("clock");
    json.begin_object();
    json.key("reference");
    json.value(rank.clock_reference);
    json.key("estimated");
    json.value(rank.offset_estimated);
    json.key("offset_ns");
    json.value(rank.clock_offset_ns);
    json.key("uncertainty_ns");
    json.value(rank.clock_uncertainty_ns);
    json.end_object();
    json.key("overlap");
    json.begin_object();
    json.key("gpu");
    json.value(rank.overlap.gpu);
    json.key("share");
    json.value(rank.overlap.share());
    json.key("communication_ns");
    json.value(rank.overlap.communication_ns);
    json.key("compute_ns");
    json.value(rank.overlap.compute_ns);
    json.key("overlapped_ns");
    json.value(rank.overlap.overlapped_ns);
    json.end_object();
    json.key("time");
    write_time(json, rank.time);
    json.end_object();
  }
  json.end_array();
  json.key("collectives");
  json.begin_array();
  for (const MatchedCollective& collective : report.collectives) {
    json.begin_object();
    json.key("group");
    json.value(collective.group);
    json.key("op");
    json.value(to_string(collective.op));
    json.key("seq");
    json.value(collective.seq);
    json.key("order");
    json.value(static_cast<std::uint64_t>(collective.order));
    json.key("ranks");
    json.value(static_cast<std::uint64_t>(collective.ranks));
    json.key("last_rank");
    json.value(static_cast<std::int64_t>(collective.last_rank));
    json.key("skew_ns");
    json.value(collective.skew_ns);
    json.key("transfer_ns");
    json.value(collective.transfer_ns);
    json.key("bytes");
    json.value(collective.bytes);
    json.key("bus_bandwidth_bytes_per_s");
    json.value(collective.bus_bandwidth);
    json.end_object();
  }
  json.end_array();
  json.key("findings");
  json.begin_array();
  for (const Finding& finding : report.findings)
    write_finding(json, finding);
  json.end_array();
  json.end_object();
  return json.str() + "\n";
}

}  // namespace tscope::analyzer
