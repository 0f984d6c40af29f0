// The `time` analysis: where the mean step goes, GPU and host side by side.

#include "time_section.h"

#include <array>

#include "render_section.h"
#include "report_rows.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/report.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

std::vector<TimeRow> all_rows(const TimeBreakdown& time) {
  std::vector<TimeRow> rows = time.has_gpu ? gpu_rows(time) : std::vector<TimeRow>{};
  for (const TimeRow& row : host_rows(time))
    rows.push_back(row);
  return rows;
}

class TimeSection final : public DataSection<TimeBreakdown> {
 public:
  using DataSection::DataSection;

  std::string text() const override {
    const TimeBreakdown& time = data();
    std::string out = "\nWhere the time goes (mean step " + format_duration(time.step_ns) + ")\n";
    for (const TimeRow& row : all_rows(time)) {
      out += formatted("  %-36s %12s  %6s\n", std::string(row.label).c_str(),
                       format_duration(row.ns).c_str(),
                       format_percent(time.step_ns > 0 ? row.ns / time.step_ns : 0).c_str());
    }
    if (time.has_gpu) out += "  " + gpu_attribution_text(time) + "\n";
    return out;
  }

  std::string markdown() const override {
    const TimeBreakdown& time = data();
    std::string out = "## Where the time goes\n\nMean step: " + format_duration(time.step_ns) +
                      "\n\n| part | per step | share |\n|---|---:|---:|\n";
    for (const TimeRow& row : all_rows(time)) {
      out += "| " + std::string(row.label) + " | " + format_duration(row.ns) + " | " +
             format_percent(time.step_ns > 0 ? row.ns / time.step_ns : 0) + " |\n";
    }
    if (time.has_gpu) out += "\n" + gpu_attribution_text(time) + "\n";
    return out;
  }

  void json(JsonWriter& json) const override { write_time_json(json, data()); }

  // The page's step breakdown chart shows it, step by step where the charts have steps.
  std::string html() const override { return {}; }
};

AnalysisOutput run_time(const AnalysisContext& context) {
  AnalysisOutput output;
  output.sections.push_back({std::string(kTimeSection),
                             "Where the time goes",
                             {},
                             {},
                             std::make_shared<TimeSection>(context.time_breakdown())});
  return output;
}

constexpr std::array kSectionKeys{kTimeSection};

}  // namespace

void write_time_json(JsonWriter& json, const TimeBreakdown& time) {
  json.begin_object();
  json.field("step_ns", time.step_ns);
  json.key("gpu");
  if (time.has_gpu) {
    write_number_object(json, {{"compute_ns", time.gpu_compute_ns},
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
  write_number_object(json, {{"data_wait_ns", time.host_data_wait_ns},
                             {"sync_ns", time.host_sync_ns},
                             {"optimizer_ns", time.host_optimizer_ns},
                             {"ops_ns", time.host_ops_ns},
                             {"other_ns", time.host_other_ns}});
  json.end_object();
}

extern constinit const Analysis kTimeAnalysis{"time", {}, kSectionKeys, &run_time};

}  // namespace tscope::analyzer
