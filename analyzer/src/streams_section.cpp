// The `streams` analysis: per GPU stream, idle time by cause, the idle intervals and the launch
// queue (stream_stats.h).

#include <array>
#include <cstdio>

#include "render_section.h"
#include "report_rows.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/report.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

class StreamsSection final : public DataSection<std::vector<StreamStats>> {
 public:
  using DataSection::DataSection;

  std::string text() const override {
    if (data().empty()) return {};
    std::string out = "\nGPU streams (idle per step by cause; idle intervals; launch queue)\n";
    out += formatted("  %-24s %8s %10s %10s %10s %7s %9s %9s %9s %7s %9s %9s\n", "stream", "work",
                     "host wait", "kern wait", "other", "gaps", "gap p50", "gap p95", "gap max",
                     "queue", "mean", "full");
    for (const StreamStats& stream : data()) {
      out += formatted("  %-24s %8zu %10s %10s %10s %7zu %9s %9s %9s %7.0f %9.1f %9s\n",
                       shorten(stream.name, 24).c_str(), stream.activities,
                       format_duration(stream.idle.host_wait_ns).c_str(),
                       format_duration(stream.idle.kernel_wait_ns).c_str(),
                       format_duration(stream.idle.other_ns).c_str(), stream.idle.intervals.count,
                       format_duration(stream.idle.intervals.p50_ns).c_str(),
                       format_duration(stream.idle.intervals.p95_ns).c_str(),
                       format_duration(stream.idle.intervals.max_ns).c_str(), stream.queue.max,
                       stream.queue.time_mean, format_duration(stream.queue.full_ns).c_str());
    }
    return out;
  }

  std::string markdown() const override {
    if (data().empty()) return {};
    std::string out =
        "\n## GPU streams\n\n| stream | work | idle: host wait | idle: kernel wait | idle: other "
        "| idle intervals | p50 | p95 | max | queue max | queue mean | queue full |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const StreamStats& stream : data()) {
      out += "| " + markdown_cell(stream.name) + " | " + std::to_string(stream.activities) + " | " +
             format_duration(stream.idle.host_wait_ns) + " | " +
             format_duration(stream.idle.kernel_wait_ns) + " | " +
             format_duration(stream.idle.other_ns) + " | " +
             std::to_string(stream.idle.intervals.count) + " | " +
             format_duration(stream.idle.intervals.p50_ns) + " | " +
             format_duration(stream.idle.intervals.p95_ns) + " | " +
             format_duration(stream.idle.intervals.max_ns) + " | " +
             formatted("%.0f | %.1f", stream.queue.max, stream.queue.time_mean) + " | " +
             format_duration(stream.queue.full_ns) + " |\n";
    }
    return out;
  }

  void json(JsonWriter& json) const override {
    json.begin_array();
    for (const StreamStats& stream : data()) {
      json.begin_object();
      json.key("name");
      json.value(stream.name);
      json.key("track");
      json.value(static_cast<std::uint64_t>(stream.track));
      json.key("activities");
      json.value(static_cast<std::uint64_t>(stream.activities));
      json.key("idle");
      const StreamIdle& idle = stream.idle;
      write_number_object(json, {{"host_wait_ns", idle.host_wait_ns},
                                 {"kernel_wait_ns", idle.kernel_wait_ns},
                                 {"other_ns", idle.other_ns},
                                 {"host_wait_count", static_cast<double>(idle.host_wait_count)},
                                 {"kernel_wait_count", static_cast<double>(idle.kernel_wait_count)},
                                 {"other_count", static_cast<double>(idle.other_count)},
                                 {"intervals", static_cast<double>(idle.intervals.count)},
                                 {"interval_p50_ns", idle.intervals.p50_ns},
                                 {"interval_p95_ns", idle.intervals.p95_ns},
                                 {"interval_max_ns", idle.intervals.max_ns}});
      json.key("queue");
      write_number_object(json, {{"samples", static_cast<double>(stream.queue.samples)},
                                 {"sample_mean", stream.queue.sample_mean},
                                 {"time_mean", stream.queue.time_mean},
                                 {"max", stream.queue.max},
                                 {"full_ns", stream.queue.full_ns}});
      json.end_object();
    }
    json.end_array();
  }

  // The page's launch queue chart shows the streams over time.
  std::string html() const override { return {}; }
};

// A CPU trace has no streams: no section, so its JSON field is null.
AnalysisOutput run_streams(const AnalysisContext& context) {
  AnalysisOutput output;
  if (!context.has_gpu()) return output;
  output.sections.push_back({std::string(kStreamsSection),
                             "GPU streams",
                             {},
                             {},
                             std::make_shared<StreamsSection>(compute_stream_stats(context))});
  return output;
}

constexpr std::array kSectionKeys{kStreamsSection};

}  // namespace

extern constinit const Analysis kStreamsAnalysis{"streams", {}, kSectionKeys, &run_streams};

}  // namespace tscope::analyzer
