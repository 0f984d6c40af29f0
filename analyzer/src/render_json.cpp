#include "render_section.h"
#include "time_section.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/json_writer.h"

namespace tscope::analyzer {
namespace {

// Bumped only when a field changes meaning or disappears; new fields keep the version.
constexpr std::string_view kSchema = "tscope.analyze/2";
constexpr std::string_view kRanksSchema = "tscope.analyze.ranks/1";

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
  // Every section an analysis may return has its field, null where it did not.
  for (const Analysis* analysis : analyses()) {
    for (const std::string_view key : analysis->section_keys) {
      json.key(key);
      if (const Section* section = report.section(key)) {
        write_section_json(json, *section);
      } else {
        json.null();
      }
    }
  }
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
  write_number_object(json, {{"min_ns", report.step_time.min_ns},
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
    write_time_json(json, rank.time);
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
