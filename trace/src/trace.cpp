#include "tscope/trace/trace.h"

#include <algorithm>
#include <limits>

#include "tscope/trace/errors.h"

namespace tscope::trace {

const SpanDetail* Trace::span_detail(std::uint32_t track_index, std::uint32_t span) const {
  const std::uint32_t detail = track(track_index).spans().detail.at(span);
  return detail == kNoIndex ? nullptr : &side_.span_details.at(detail);
}

std::optional<OpView> Trace::op(std::uint32_t track_index, std::uint32_t span) const {
  const SpanColumns& spans = track(track_index).spans();
  const std::uint32_t detail = spans.detail.at(span);
  // The analyses call this for every op span, so past the checked span only the indices the
  // builder wrote are followed, unchecked.
  if (detail == kNoIndex || side_.span_details[detail].op == kNoIndex) return std::nullopt;
  const OpDetail& op = side_.op_details[side_.span_details[detail].op];
  const TensorRun run = spans.tensor_run(span);
  const auto ids = std::span<const std::uint64_t>(side_.tensor_ids).subspan(run.begin);
  return OpView{side_.shapes.list(op.input_shapes),
                op.flops,
                op.bytes_read,
                op.bytes_written,
                ids.first(run.read),
                ids.subspan(run.read, run.written)};
}

ArgList Trace::args(ArgRange range) const {
  if (range.count == 0) return {};
  if (range.begin > side_.arg_lists.size() || range.count > side_.arg_lists.size() - range.begin) {
    throw TraceError("argument range [" + std::to_string(range.begin) + ", +" +
                     std::to_string(range.count) + ") outside a table of " +
                     std::to_string(side_.arg_lists.size()) + " arguments");
  }
  return {std::span<const std::uint32_t>(side_.arg_lists).subspan(range.begin, range.count),
          side_.args};
}

SpanRecord Trace::span_record(std::uint32_t track_index, std::uint32_t span) const {
  const SpanColumns& columns = track(track_index).spans();
  SpanRecord record;
  record.start = columns.start.at(span);
  record.end = columns.end(span);
  record.name = columns.name[span];
  record.category = columns.category[span];
  record.correlation_id = columns.correlation_id(span);
  record.external_correlation_id = columns.external_correlation_id(span);
  if (const SpanDetail* detail = span_detail(track_index, span)) {
    if (detail->kernel != kNoIndex) record.kernel = side_.kernels.at(detail->kernel);
    if (detail->copy != kNoIndex) record.copy = side_.copies.at(detail->copy);
    if (const std::optional<OpView> op = this->op(track_index, span)) {
      OpInfo& info = record.op.emplace();
      for (const ShapeLists::Shape shape : op->input_shapes)
        info.input_shapes.emplace_back(shape.begin(), shape.end());
      info.flops = op->flops;
      info.bytes_read = op->bytes_read;
      info.bytes_written = op->bytes_written;
      info.tensors_read.assign(op->tensors_read.begin(), op->tensors_read.end());
      info.tensors_written.assign(op->tensors_written.begin(), op->tensors_written.end());
    }
    const auto span_args = args(detail->args);
    record.args.assign(span_args.begin(), span_args.end());
  }
  return record;
}

InstantRecord Trace::instant_record(std::uint32_t track_index, std::uint32_t instant) const {
  const InstantColumns& columns = track(track_index).instants();
  const auto instant_args = args(columns.args.at(instant));
  return {columns.time[instant], columns.name[instant], columns.category[instant],
          std::vector<Arg>(instant_args.begin(), instant_args.end())};
}

TimeNs Trace::begin_time() const {
  TimeNs begin = std::numeric_limits<TimeNs>::max();
  for (const Track& each : tracks_) {
    // Each column is sorted by time, so its first element is its earliest.
    if (each.spans().size() != 0) begin = std::min(begin, each.spans().start.front());
    if (each.instants().size() != 0) begin = std::min(begin, each.instants().time.front());
    if (each.counters().size() != 0) begin = std::min(begin, each.counters().time.front());
    if (each.memory().size() != 0) begin = std::min(begin, each.memory().time.front());
  }
  return begin == std::numeric_limits<TimeNs>::max() ? 0 : begin;
}

TimeNs Trace::end_time() const {
  TimeNs end = std::numeric_limits<TimeNs>::min();
  for (const Track& each : tracks_) {
    // Spans at one depth are disjoint, so the last of each level ends latest in that level.
    for (std::size_t depth = 0; depth < each.depth_count(); ++depth) {
      end = std::max(end, each.spans().end(each.spans_at_depth(depth).back()));
    }
    if (each.instants().size() != 0) end = std::max(end, each.instants().time.back());
    if (each.counters().size() != 0) end = std::max(end, each.counters().time.back());
    if (each.memory().size() != 0) end = std::max(end, each.memory().time.back());
  }
  return end == std::numeric_limits<TimeNs>::min() ? 0 : end;
}

TraceCounts Trace::counts() const {
  TraceCounts counts;
  for (const Track& each : tracks_) {
    counts.spans += each.spans().size();
    counts.instants += each.instants().size();
    counts.counter_samples += each.counters().size();
    counts.memory_events += each.memory().size();
    for (const Category category : each.spans().category) {
      ++counts.spans_by_category[static_cast<int>(category)];
    }
  }
  counts.flows = flows_.size();
  return counts;
}

}  // namespace tscope::trace
