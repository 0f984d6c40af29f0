#include "oom_events.h"

#include <algorithm>
#include <cctype>
#include <variant>

#include "tscope/analyzer/memory.h"

namespace tscope::analyzer {
namespace {

std::string text_arg(const trace::Trace& trace, trace::ArgRange args, std::string_view key) {
  for (const trace::Arg& arg : trace.args(args)) {
    if (trace.string(arg.key) != key) continue;
    if (const auto* text = std::get_if<trace::StringArg>(&arg.value))
      return std::string(trace.string(text->id));
  }
  return {};
}

}  // namespace

bool names_out_of_memory(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("out of memory") != std::string::npos || lower.find("oom") != std::string::npos;
}

std::optional<double> numeric_arg(const trace::Trace& trace, trace::ArgRange args,
                                  std::string_view key) {
  for (const trace::Arg& arg : trace.args(args)) {
    if (trace.string(arg.key) != key) continue;
    if (const auto* integer = std::get_if<std::int64_t>(&arg.value))
      return static_cast<double>(*integer);
    if (const auto* real = std::get_if<double>(&arg.value)) return *real;
  }
  return std::nullopt;
}

std::optional<double> step_batch_size(const trace::Trace& trace, const trace::EventRef& step_span) {
  const std::uint32_t detail = trace.track(step_span.track).spans().detail[step_span.index];
  if (detail == trace::kNoIndex) return std::nullopt;
  const std::optional<double> batch =
      numeric_arg(trace, trace.span_details()[detail].args, "batch_size");
  if (batch && *batch > 0) return batch;
  return std::nullopt;
}

std::vector<OomEvent> out_of_memory_events(const trace::Trace& trace) {
  std::vector<OomEvent> events;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::InstantColumns& instants = trace.track(track_index).instants();
    for (std::uint32_t i = 0; i < instants.size(); ++i) {
      if (!names_out_of_memory(trace.string(instants.name[i]))) continue;
      const trace::ArgRange args = instants.args[i];
      OomEvent event;
      event.ref = {trace::EventKind::kInstant, track_index, i};
      event.time = instants.time[i];
      event.requested_bytes = numeric_arg(trace, args, "requested_bytes");
      event.limit_bytes = numeric_arg(trace, args, "limit_bytes");
      event.batch_size = numeric_arg(trace, args, "batch_size");
      event.allocated_bytes = numeric_arg(trace, args, "allocated_bytes");
      event.reserved_bytes = numeric_arg(trace, args, "reserved_bytes");
      event.largest_free_block_bytes = numeric_arg(trace, args, "largest_free_block_bytes");
      event.op = text_arg(trace, args, "op");
      event.inner_op = text_arg(trace, args, "inner_op");
      events.push_back(std::move(event));
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const OomEvent& a, const OomEvent& b) { return a.time < b.time; });
  return events;
}

}  // namespace tscope::analyzer
