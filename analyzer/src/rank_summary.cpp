#include "tscope/analyzer/rank_summary.h"

#include <algorithm>
#include <charconv>

#include "tscope/analyzer/errors.h"

namespace tscope::analyzer {
namespace {

std::optional<int> metadata_integer(const trace::Trace& trace, const std::string& key,
                                    const std::string& source) {
  const auto found = trace.metadata().values.find(key);
  if (found == trace.metadata().values.end()) return std::nullopt;
  const std::string& text = found->second;
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    throw AnalyzerError(source + ": metadata " + key + " is '" + text + "', not a rank number");
  }
  return value;
}

std::string metadata_text(const trace::Trace& trace, const std::string& key) {
  const auto found = trace.metadata().values.find(key);
  return found == trace.metadata().values.end() ? std::string() : found->second;
}

}  // namespace

std::optional<int> trace_rank(const trace::Trace& trace, const std::string& source) {
  if (const std::optional<int> rank = metadata_integer(trace, "rank", source)) return rank;
  // Kineto traces carry their rank as the process's (distributedInfo.rank).
  for (const trace::Process& process : trace.processes()) {
    if (process.rank >= 0) return process.rank;
  }
  return std::nullopt;
}

RankSummary summarize_rank(const trace::Trace& trace, std::string source,
                           const AnalysisOptions& options) {
  RankSummary summary;
  summary.rank = trace_rank(trace, source);
  summary.world_size = metadata_integer(trace, "world_size", source);
  for (const trace::Process& process : trace.processes()) {
    if (summary.host.empty() && process.host != trace::kEmptyString)
      summary.host = trace.string(process.host);
  }
  if (const std::string host = metadata_text(trace, "host"); !host.empty()) summary.host = host;
  summary.run_id = metadata_text(trace, "run_id");
  summary.backend = metadata_text(trace, "backend");
  summary.source = std::move(source);

  const AnalysisContext context(trace, options);
  const StepSet& steps = context.steps();
  summary.steps = summarize_steps(steps);
  const auto slowest = std::max_element(
      steps.steps.begin(), steps.steps.end(),
      [](const Step& a, const Step& b) { return a.end - a.start < b.end - b.start; });
  if (slowest != steps.steps.end()) summary.slowest_step = slowest->span;
  if (!steps.whole_trace) {
    const std::size_t count = steps.steps.size();
    const std::size_t kept = std::min(count, kSampledSteps);
    for (std::size_t i = 0; i < kept; ++i) {
      const std::size_t index = i * count / kept;
      const Step& step = steps.steps[index];
      summary.step_times.push_back({index, static_cast<double>(step.end - step.start)});
    }
  }
  summary.time = context.time_breakdown();
  summary.collectives = find_collectives(trace, summary.groups);
  if (!steps.whole_trace && !steps.steps.empty()) {
    for (CollectiveRecord& record : summary.collectives) {
      record.in_step = record.host_start >= steps.steps.front().start &&
                       record.host_start < steps.steps.back().end;
    }
  }
  summary.overlap = compute_comm_overlap(trace, steps);
  return summary;
}

}  // namespace tscope::analyzer
