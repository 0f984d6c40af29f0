#include "render_critical_path.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/json_writer.h"

namespace tscope::analyzer {
namespace {

// Bumped only when a field changes meaning or disappears; new fields keep the version.
constexpr std::string_view kSchema = "tscope.analyze/2";
constexpr std::string_view kRanksSchema = "tscope.analyze.ranks/1";

void write_name_stats(JsonWriter& json, const std::vector<NameStats>& entries) {
  json.begin_array();
  for (const NameStats& entry : entries) {
    json.begin_object();
    json.field("name", entry.name);
    json.field("count", entry.count);
    json.field("total_ns", entry.total_ns);
    json.field("mean_ns", entry.mean_ns);
    json.field("p50_ns", entry.p50_ns);
    json.field("p95_ns", entry.p95_ns);
    json.end_object();
  }
  json.end_array();
}

void write_fields(JsonWriter& json,
                  std::initializer_list<std::pair<std::string_view, double>> fields) {
  json.begin_object();
  for (const auto& [name, value] : fields) {
    json.field(name, value);
  }
  json.end_object();
}

void write_time(JsonWriter& json, const TimeBreakdown& time) {
  json.begin_object();
  json.field("step_ns", time.step_ns);
  json.key("gpu");
  if (time.has_gpu) {
    write_fields(json, {{"compute_ns", time.gpu_compute_ns},
                        {"communication_ns", time.gpu_communication_ns},
                        {"copy_ns", time.gpu_copy_ns},
                        {"memset_ns", time.gpu_memset_ns},
                        {"idle_host_wait_ns", time.gpu_idle_host_wait_ns},
                        {"idle_kernel_wait_ns", time.gpu_idle_kernel_wait_ns},
                        {"idle_other_ns", time.gpu_idle_other_ns},
                        {"window_ns", time.gpu_window_ns},
                        {"by_overlap_ns", time.gpu_by_overlap_ns},
                        {"by_overlap_events", time.gpu_by_overlap_events}});
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

void write_streams(JsonWriter& json, const std::vector<StreamStats>& streams) {
  json.begin_array();
  for (const StreamStats& stream : streams) {
    json.begin_object();
    json.key("name");
    json.value(stream.name);
    json.key("track");
    json.value(static_cast<std::uint64_t>(stream.track));
    json.key("activities");
    json.value(static_cast<std::uint64_t>(stream.activities));
    json.key("idle");
    write_fields(json, {{"host_wait_ns", stream.idle.host_wait_ns},
                        {"kernel_wait_ns", stream.idle.kernel_wait_ns},
                        {"other_ns", stream.idle.other_ns},
                        {"host_wait_count", static_cast<double>(stream.idle.host_wait_count)},
                        {"kernel_wait_count", static_cast<double>(stream.idle.kernel_wait_count)},
                        {"other_count", static_cast<double>(stream.idle.other_count)},
                        {"intervals", static_cast<double>(stream.idle.intervals.count)},
                        {"interval_p50_ns", stream.idle.intervals.p50_ns},
                        {"interval_p95_ns", stream.idle.intervals.p95_ns},
                        {"interval_max_ns", stream.idle.intervals.max_ns}});
    json.key("queue");
    write_fields(json, {{"samples", static_cast<double>(stream.queue.samples)},
                        {"sample_mean", stream.queue.sample_mean},
                        {"time_mean", stream.queue.time_mean},
                        {"max", stream.queue.max},
                        {"full_ns", stream.queue.full_ns}});
    json.end_object();
  }
  json.end_array();
}

void write_finding(JsonWriter& json, const Finding& finding) {
  json.begin_object();
  json.field("kind", finding.kind);
  json.field("severity", to_string(finding.severity));
  json.field("title", finding.title);
  json.key("cost");
  json.begin_object();
  json.field("time_per_step_ns", finding.cost.time_per_step_ns);
  json.field("share_of_step", finding.cost.share_of_step);
  json.field("bytes", finding.cost.bytes);
  json.end_object();
  json.key("estimated_gain");
  json.begin_object();
  json.field("time_per_step_ns", finding.estimated_gain_ns_per_step);
  json.field("bytes", finding.estimated_gain_bytes);
  json.field("basis", to_string(finding.gain_basis));
  if (!finding.gain_counted_under.empty()) json.field("counted_under", finding.gain_counted_under);
  json.end_object();
  json.field("fix", finding.fix);
  json.key("evidence");
  json.begin_array();
  for (const trace::EventRef& ref : finding.evidence) {
    json.begin_object();
    if (finding.evidence_rank >= 0) {
      json.field("rank", static_cast<std::int64_t>(finding.evidence_rank));
    }
    json.field("kind", trace::to_string(ref.kind));
    json.field("track", static_cast<std::uint64_t>(ref.track));
    json.field("index", static_cast<std::uint64_t>(ref.index));
    json.field("ref", ref.pack());
    json.end_object();
  }
  json.end_array();
  json.field("explanation", finding.explanation);
  json.field("recommendation", finding.recommendation);
  json.key("metrics");
  json.begin_object();
  for (const Metric& metric : finding.metrics) {
    json.key(metric.name);
    json.begin_object();
    json.field("value", metric.value);
    json.field("unit", metric.unit);
    json.end_object();
  }
  json.end_object();
  json.end_object();
}

void write_fix_plan(JsonWriter& json, const FixPlan& plan) {
  json.key("fix_plan");
  json.begin_object();
  json.field("replayed_steps", static_cast<std::uint64_t>(plan.replayed_steps));
  json.field("measured_step_ns", plan.measured_step_ns);
  json.object_array("fixes", plan.fixes, [&](const PlannedFix& fix) {
    json.field("kinds", fix.kinds);
    json.field("title", fix.title);
    json.field("edits", fix.edits);
    json.field("gain_alone_ns", fix.gain_alone_ns);
    json.field("step_after_ns", fix.step_after_ns);
  });
  json.end_object();
}

void write_findings(JsonWriter& json, const std::vector<Finding>& findings) {
  json.key("findings");
  json.begin_array();
  for (const Finding& finding : findings)
    write_finding(json, finding);
  json.end_array();
}

}  // namespace

std::string render_json(const Report& report) {
  JsonWriter json;
  json.begin_object();
  json.field("schema", kSchema);
  json.field("source", report.source);
  json.key("steps");
  json.begin_object();
  json.field("count", static_cast<std::uint64_t>(report.steps.count));
  json.field("whole_trace", report.steps.whole_trace);
  json.field("mean_ns", report.steps.mean_ns);
  json.field("min_ns", report.steps.min_ns);
  json.field("max_ns", report.steps.max_ns);
  json.field("stddev_ns", report.steps.stddev_ns);
  json.end_object();
  json.optional_field("time", report.time,
                      [&](const TimeBreakdown& time) { write_time(json, time); });
  json.optional_field("breakdown", report.breakdown, [&](const OpBreakdown& breakdown) {
    json.begin_object();
    json.key("ops");
    write_name_stats(json, breakdown.ops);
    json.key("kernels");
    write_name_stats(json, breakdown.kernels);
    json.end_object();
  });
  json.optional_field("streams", report.streams, [&](const std::vector<StreamStats>& streams) {
    write_streams(json, streams);
  });
  json.optional_field("critical_path", report.critical_path,
                      [&](const CriticalPath& path) { write_critical_path_json(json, path); });
  write_fix_plan(json, report.fix_plan);
  write_findings(json, report.findings);
  json.end_object();
  return json.str() + "\n";
}

std::string render_json(const MultiRankReport& report) {
  JsonWriter json;
  json.begin_object();
  json.field("schema", kRanksSchema);
  json.field("world_size", static_cast<std::uint64_t>(report.world_size));
  json.key("absent_ranks");
  json.begin_array();
  for (const int rank : report.absent_ranks)
    json.value(static_cast<std::int64_t>(rank));
  json.end_array();
  json.field("run_id", report.run_id);
  json.field("backend", report.backend);
  json.field("matched_by_seq", report.matched_by_seq);
  json.field("unmatched_collectives", static_cast<std::uint64_t>(report.unmatched_collectives));
  json.key("step_time");
  write_fields(json, {{"min_ns", report.step_time.min_ns},
                      {"median_ns", report.step_time.median_ns},
                      {"max_ns", report.step_time.max_ns}});
  json.object_array("ranks", report.ranks, [&](const RankReport& rank) {
    json.field("rank", static_cast<std::int64_t>(rank.rank));
    json.field("source", rank.source);
    json.field("host", rank.host);
    json.field("steps", static_cast<std::uint64_t>(rank.steps.count));
    json.field("mean_step_ns", rank.steps.mean_ns);
    json.field("collectives", static_cast<std::uint64_t>(rank.collectives));
    json.field("last_arrivals", static_cast<std::uint64_t>(rank.last_arrivals));
    json.field("wait_ns_per_step", rank.wait_ns_per_step);
    json.field("others_wait_ns_per_step", rank.others_wait_ns_per_step);
    json.key("clock");
    json.begin_object();
    json.field("reference", rank.clock_reference);
    json.field("estimated", rank.offset_estimated);
    json.field("offset_ns", rank.clock_offset_ns);
    json.field("uncertainty_ns", rank.clock_uncertainty_ns);
    json.end_object();
    json.key("overlap");
    json.begin_object();
    json.field("gpu", rank.overlap.gpu);
    json.field("share", rank.overlap.share());
    json.field("communication_ns", rank.overlap.communication_ns);
    json.field("compute_ns", rank.overlap.compute_ns);
    json.field("overlapped_ns", rank.overlap.overlapped_ns);
    json.end_object();
    json.key("time");
    write_time(json, rank.time);
  });
  json.object_array("collectives", report.collectives, [&](const MatchedCollective& collective) {
    json.field("group", collective.group);
    json.field("op", to_string(collective.op));
    json.field("seq", collective.seq);
    json.field("order", static_cast<std::uint64_t>(collective.order));
    json.field("ranks", static_cast<std::uint64_t>(collective.ranks));
    json.field("last_rank", static_cast<std::int64_t>(collective.last_rank));
    json.field("skew_ns", collective.skew_ns);
    json.field("transfer_ns", collective.transfer_ns);
    json.field("bytes", collective.bytes);
    json.field("bus_bandwidth_bytes_per_s", collective.bus_bandwidth);
  });
  write_findings(json, report.findings);
  json.end_object();
  return json.str() + "\n";
}

}  // namespace tscope::analyzer
