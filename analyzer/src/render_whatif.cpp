#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tscope/analyzer/multirank_whatif.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/json_writer.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

std::string change(double measured_ns, double predicted_ns) {
  if (measured_ns <= 0) return "";
  const double percent = 100 * (predicted_ns - measured_ns) / measured_ns;
  // A change that rounds to nothing is shown as none, not as "-0.0%".
  return fmt::format("{:+.1f}%", std::abs(percent) < 0.05 ? 0.0 : percent);
}

}  // namespace

std::string render_whatif_text(const WhatIfResult& result, std::span<const WhatIfEdit> edits) {
  std::string out;
  if (edits.empty()) {
    out += "Replay of the run as measured (no edits)\n";
  } else {
    out += "Edits:\n";
    for (std::size_t e = 0; e < edits.size(); ++e)
      out += fmt::format("  {}  ({} events)\n", edits[e].text, result.matches[e]);
  }
  out += fmt::format(
      "{} of {} steps replayed; the replay without edits is off the measured steps by {:.2f}% "
      "(median), {:.2f}% (most)\n\n",
      result.replayed_steps, result.steps.size(), 100 * result.replay_error_median,
      100 * result.replay_error_max);
  std::size_t width = 4;
  for (const StepPrediction& step : result.steps)
    width = std::max(width, step.name.size());
  out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>8}\n", "step", width, "measured", "predicted",
                     "change");
  for (const StepPrediction& step : result.steps) {
    if (!step.replayed) continue;
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>8}\n", step.name, width,
                       format_duration(step.measured_ns), format_duration(step.predicted_ns),
                       change(step.measured_ns, step.predicted_ns));
  }
  if (result.replayed_steps > 0) {
    out += fmt::format("{:<{}}  {:>12}  {:>12}  {:>8}\n", "mean", width,
                       format_duration(result.measured_mean_ns),
                       format_duration(result.predicted_mean_ns),
                       change(result.measured_mean_ns, result.predicted_mean_ns));
  }
  bool header = false;
  for (const StepPrediction& step : result.steps) {
    if (step.replayed) continue;
    if (!header) out += "\nLeft out of every figure:\n";
    header = true;
    out += fmt::format("  {}: {}\n", step.name, step.why_not);
  }
  return out;
}

namespace {

// The edits with the events each matched, as "tscope.whatif/1" and "tscope.whatif-ranks/1" list
// them.
void write_edits(JsonWriter& json, std::span<const WhatIfEdit> edits,
                 std::span<const std::size_t> matches) {
  json.key("edits");
  json.begin_array();
  for (std::size_t e = 0; e < edits.size(); ++e) {
    json.begin_object();
    json.field("edit", edits[e].text);
    json.field("matched_events", static_cast<std::uint64_t>(matches[e]));
    json.end_object();
  }
  json.end_array();
}

// The fields of "tscope.whatif/1" after its schema, into an open object.
void write_whatif_fields(JsonWriter& json, const WhatIfResult& result,
                         std::span<const WhatIfEdit> edits) {
  write_edits(json, edits, result.matches);
  json.field("replayed_steps", static_cast<std::uint64_t>(result.replayed_steps));
  json.field("measured_mean_ns", result.measured_mean_ns);
  json.field("predicted_mean_ns", result.predicted_mean_ns);
  json.field("replay_error_median", result.replay_error_median);
  json.field("replay_error_max", result.replay_error_max);
  json.object_array("steps", result.steps, [&](const StepPrediction& step) {
    json.field("name", step.name);
    json.field("measured_ns", step.measured_ns);
    json.field("replayed", step.replayed);
    if (step.replayed) {
      json.field("replayed_ns", step.replayed_ns);
      json.field("predicted_ns", step.predicted_ns);
    } else {
      json.field("why_not", step.why_not);
    }
  });
}

}  // namespace

std::string render_whatif_json(const WhatIfResult& result, std::span<const WhatIfEdit> edits) {
  JsonWriter json(JsonLayout::kIndented);
  json.begin_object();
  json.field("schema", "tscope.whatif/1");
  write_whatif_fields(json, result, edits);
  json.end_object();
  return json.str() + "\n";
}

std::string render_rank_whatif_text(const MultiRankWhatIfResult& result,
                                    std::span<const WhatIfEdit> edits) {
  std::string out =
      fmt::format("{} ranks replayed together, coupled at {} collectives within their steps",
                  result.ranks.size(), result.coupled_collectives);
  if (result.uncoupled_collectives > 0) {
    out +=
        fmt::format(" ({} others, of several kernels or not on every rank, replayed as measured)",
                    result.uncoupled_collectives);
  }
  out += "\n";
  if (!edits.empty()) {
    out += "Edits:\n";
    for (std::size_t e = 0; e < edits.size(); ++e)
      out += fmt::format("  {}  ({} events over the ranks)\n", edits[e].text, result.matches[e]);
  }
  for (const RankWhatIf& rank : result.ranks) {
    out += fmt::format("\n== rank {} ({})\n",
                       rank.rank ? std::to_string(*rank.rank) : std::string("?"), rank.source);
    // The edits were listed once above; each rank shows its steps.
    const std::string steps = render_whatif_text(rank.result, {});
    out += steps.substr(steps.find('\n') + 1);
  }
  return out;
}

std::string render_rank_whatif_json(const MultiRankWhatIfResult& result,
                                    std::span<const WhatIfEdit> edits) {
  JsonWriter json(JsonLayout::kIndented);
  json.begin_object();
  json.field("schema", "tscope.whatif-ranks/1");
  json.field("coupled_collectives", static_cast<std::uint64_t>(result.coupled_collectives));
  json.field("uncoupled_collectives", static_cast<std::uint64_t>(result.uncoupled_collectives));
  write_edits(json, edits, result.matches);
  json.object_array("ranks", result.ranks, [&](const RankWhatIf& rank) {
    json.field("source", rank.source);
    if (rank.rank) json.field("rank", static_cast<std::int64_t>(*rank.rank));
    json.field("clock_offset_ns", rank.clock_offset_ns);
    json.key("whatif");
    json.begin_object();
    write_whatif_fields(json, rank.result, edits);
    json.end_object();
  });
  json.end_object();
  return json.str() + "\n";
}

}  // namespace tscope::analyzer
