#include "tscope/gui/event_description.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tscope/gui/ruler.h"
#include "tscope/report/units.h"

namespace tscope::gui {

namespace {

std::string arg_text(const trace::Trace& trace, const trace::ArgValue& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&value)) return fmt::format("{}", *real);
  return std::string(trace.string(std::get<trace::StringArg>(value).id));
}

void add_args(const trace::Trace& trace, const std::vector<trace::Arg>& args,
              std::vector<DetailRow>& rows) {
  for (const trace::Arg& arg : args) {
    rows.push_back({std::string(trace.string(arg.key)), arg_text(trace, arg.value)});
  }
}

std::string track_name(const trace::Trace& trace, std::uint32_t track) {
  const std::string_view name = trace.string(trace.track(track).info().name);
  return name.empty() ? fmt::format("track {}", track) : std::string(name);
}

std::string span_summary(const trace::Trace& trace, trace::EventRef event, trace::TimeNs origin) {
  const trace::SpanColumns& spans = trace.track(event.track).spans();
  return fmt::format("{} at {} on {}", trace.string(spans.name[event.index]),
                     format_duration(spans.start[event.index] - origin),
                     track_name(trace, event.track));
}

void add_kernel(const trace::KernelInfo& kernel, std::vector<DetailRow>& rows) {
  rows.push_back({"grid", fmt::format("{}", fmt::join(kernel.grid, " x "))});
  rows.push_back({"block", fmt::format("{}", fmt::join(kernel.block, " x "))});
  rows.push_back({"registers per thread", std::to_string(kernel.registers_per_thread)});
  rows.push_back({"static shared memory", fmt::format("{} B", kernel.static_shared_bytes)});
  rows.push_back({"dynamic shared memory", fmt::format("{} B", kernel.dynamic_shared_bytes)});
  rows.push_back({"device", std::to_string(kernel.device)});
  rows.push_back({"stream", std::to_string(kernel.stream)});
}

void add_copy(const trace::CopyInfo& copy, std::vector<DetailRow>& rows) {
  rows.push_back({"bytes", std::to_string(copy.bytes)});
  rows.push_back({"direction", std::string(trace::to_string(copy.direction))});
  rows.push_back({"memory", fmt::format("{} -> {}", trace::to_string(copy.source),
                                        trace::to_string(copy.destination))});
}

void add_op(const trace::OpInfo& op, std::vector<DetailRow>& rows) {
  std::string shapes;
  for (const auto& shape : op.input_shapes) {
    shapes += fmt::format("{}[{}]", shapes.empty() ? "" : ", ", fmt::join(shape, ", "));
  }
  rows.push_back({"input shapes", shapes});
  rows.push_back({"flops", std::to_string(op.flops)});
  rows.push_back({"bytes read", std::to_string(op.bytes_read)});
  rows.push_back({"bytes written", std::to_string(op.bytes_written)});
  rows.push_back({"tensors read", fmt::format("{}", fmt::join(op.tensors_read, ", "))});
  rows.push_back({"tensors written", fmt::format("{}", fmt::join(op.tensors_written, ", "))});
}

void add_flows(const trace::Trace& trace, trace::EventRef event, trace::TimeNs origin,
               const std::vector<trace::Flow>& flows, std::vector<DetailRow>& rows) {
  for (const trace::Flow& flow : flows) {
    const bool outgoing = flow.from == event;
    const trace::EventRef other = outgoing ? flow.to : flow.from;
    if (other.kind != trace::EventKind::kSpan) continue;
    std::string key;
    switch (flow.kind) {
      case trace::FlowKind::kLaunchToKernel:
        key = outgoing ? "launches" : "launched by";
        break;
      case trace::FlowKind::kOpToKernel:
        key = outgoing ? "runs kernel" : "run by op";
        break;
      case trace::FlowKind::kForwardBackward:
        key = outgoing ? "backward" : "forward";
        break;
      case trace::FlowKind::kHandoff:
        key = outgoing ? "awaited by" : "waits for";
        break;
      case trace::FlowKind::kEnqueue:
        key = outgoing ? "queues" : "queued by";
        break;
      case trace::FlowKind::kOther:
        key = outgoing ? "flow to" : "flow from";
        break;
    }
    rows.push_back({key, span_summary(trace, other, origin)});
  }
}

std::vector<DetailRow> describe_span(const trace::Trace& trace, trace::EventRef event,
                                     trace::TimeNs origin, const std::vector<trace::Flow>& flows) {
  const trace::SpanRecord span = trace.span_record(event.track, event.index);
  std::vector<DetailRow> rows{
      {"name", std::string(trace.string(span.name))},
      {"category", std::string(trace::to_string(span.category))},
      {"track", track_name(trace, event.track)},
      {"start", format_time_label(span.start - origin, 1)},
      {"duration", format_duration(span.end - span.start)},
      {"depth", std::to_string(trace.track(event.track).spans().depth[event.index])},
  };
  if (span.correlation_id != 0) {
    rows.push_back({"correlation id", std::to_string(span.correlation_id)});
  }
  if (span.external_correlation_id != 0) {
    rows.push_back({"external correlation id", std::to_string(span.external_correlation_id)});
  }
  if (span.kernel) add_kernel(*span.kernel, rows);
  if (span.copy) add_copy(*span.copy, rows);
  if (span.op) add_op(*span.op, rows);
  add_args(trace, span.args, rows);
  add_flows(trace, event, origin, flows, rows);
  return rows;
}

}  // namespace

std::vector<DetailRow> describe_event(const trace::Trace& trace, trace::EventRef event,
                                      trace::TimeNs origin, const std::vector<trace::Flow>& flows) {
  if (event.kind == trace::EventKind::kSpan) return describe_span(trace, event, origin, flows);
  if (event.kind == trace::EventKind::kInstant) {
    const trace::InstantRecord instant = trace.instant_record(event.track, event.index);
    std::vector<DetailRow> rows{
        {"name", std::string(trace.string(instant.name))},
        {"category", std::string(trace::to_string(instant.category))},
        {"track", track_name(trace, event.track)},
        {"time", format_time_label(instant.time - origin, 1)},
    };
    add_args(trace, instant.args, rows);
    return rows;
  }
  return {{"event", fmt::format("{} {} on {}", trace::to_string(event.kind), event.index,
                                track_name(trace, event.track))}};
}

}  // namespace tscope::gui
