#include "tscope/trace/trace_builder.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "free_heap.h"
#include "sort_runs.h"
#include "tscope/trace/arg_runs.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/record_interner.h"
#include "tscope/trace/time_range.h"
#include "two_threads.h"

namespace tscope::trace {
namespace {

constexpr std::size_t kMaxDepth = std::numeric_limits<std::uint16_t>::max();

// Below this many events the builder's buffers are a few MiB that glibc reuses for the next
// allocation; malloc_trim would cost more than it returns (it hands back every free page with a
// TLB flush on each core, and the next import faults them in again: a fuzzer's 10 KB trace
// imported over and over spent 40% of its time there).
constexpr std::uint64_t kTrimFromEvents = std::uint64_t{1} << 16;

// Where each event of one kind on one track moved when its column was sorted:
// moved_to[arrival index] = sorted index, left empty when the events arrived already in order
// (the common case: .tsc files and most recorders), which spares a copy of every column.
struct Positions {
  std::vector<std::uint32_t> moved_to;
  std::size_t size = 0;
};

// A column left empty (one that only the tracks whose events carry it fill) stays empty.
template <typename Column>
void apply_order(Column& column, const std::vector<std::uint32_t>& order) {
  if (order.empty() || column.empty()) return;
  Column sorted;
  sorted.reserve(column.size());
  for (const std::uint32_t from : order)
    sorted.push_back(std::move(column[from]));
  column = std::move(sorted);
}

Positions invert(const std::vector<std::uint32_t>& order, std::size_t size) {
  Positions positions{std::vector<std::uint32_t>(order.size()), size};
  for (std::uint32_t sorted = 0; sorted < order.size(); ++sorted) {
    positions.moved_to[order[sorted]] = sorted;
  }
  return positions;
}

// Puts every column of one kind of event in `order` (of `size` events) and says where each went.
template <typename... Columns>
Positions reorder(const std::vector<std::uint32_t>& order, std::size_t size, Columns&... columns) {
  (apply_order(columns, order), ...);
  return invert(order, size);
}

// The sorting permutation, or an empty one when `time` is already sorted.
std::vector<std::uint32_t> time_order(const TimeColumn& time) {
  if (std::is_sorted(time.begin(), time.end())) return {};
  std::vector<std::uint32_t> order(time.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return time[a] < time[b]; });
  return order;
}

// Enclosing spans sort before what they contain: by start, then longest first.
// The sorting permutation, or an empty one when the spans are already in order.
std::vector<std::uint32_t> span_order(const SpanColumns& spans) {
  const auto before = [&](std::uint32_t a, std::uint32_t b) {
    if (spans.start[a] != spans.start[b]) return spans.start[a] < spans.start[b];
    return spans.end(a) > spans.end(b);
  };
  bool sorted = true;
  for (std::uint32_t span = 1; span < spans.size() && sorted; ++span) {
    sorted = !before(span, span - 1);
  }
  if (sorted) return {};
  std::vector<std::uint32_t> order(spans.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), before);
  return order;
}

// Records may only name strings interned in this builder.
void require_string(const StringTable& strings, StringId id, const char* field) {
  if (id >= strings.size()) {
    throw TraceError(std::string(field) + " names string " + std::to_string(id) + " but only " +
                     std::to_string(strings.size()) + " strings are interned");
  }
}

bool is_gpu_activity(Category category) {
  return category == Category::kKernel || category == Category::kMemcpy ||
         category == Category::kMemset;
}

bool is_launch(Category category) {
  return category == Category::kRuntimeApi || category == Category::kDriverApi;
}

// Appends the value of event `index` to a column that stays empty until some event has a value
// other than the default; the events before that one then get the default.
template <typename Column, typename Value>
void append_to_lazy_column(Column& column, std::size_t index, const Value& value) {
  if (column.empty() && value == Value{}) return;
  column.resize(index);
  column.push_back(value);
}

// Old index -> new index of a side table rebuilt in event order: each old entry moves on its first
// use, so entries keep being stored once each.
class Renumbering {
 public:
  explicit Renumbering(std::size_t size) : moved_to_(size, kNoIndex) {}

  template <typename Move>
  std::uint32_t operator()(std::uint32_t old, Move move) {
    if (old == kNoIndex) return kNoIndex;
    std::uint32_t& moved = moved_to_[old];
    if (moved == kNoIndex) moved = move(old);
    return moved;
  }

 private:
  std::vector<std::uint32_t> moved_to_;
};

template <typename Value>
std::uint32_t append_entry(std::vector<Value>& table, const Value& value) {
  table.push_back(value);
  return static_cast<std::uint32_t>(table.size() - 1);
}

}  // namespace

struct TraceBuilder::SortedPositions {
  std::vector<Positions> spans;
  std::vector<Positions> instants;
  std::vector<Positions> counters;
  std::vector<Positions> memory;

  std::uint32_t map(const EventRef& ref) const {
    // In EventKind order; a kind past the last names no event.
    const std::array<const std::vector<Positions>*, 4> kinds{&spans, &instants, &counters, &memory};
    const auto kind = static_cast<std::size_t>(ref.kind);
    const std::vector<Positions>* by_kind = kind < kinds.size() ? kinds[kind] : nullptr;
    if (by_kind == nullptr || ref.track >= by_kind->size() ||
        ref.index >= (*by_kind)[ref.track].size) {
      throw TraceError("flow endpoint names no event: " + std::string(to_string(ref.kind)) + " " +
                       std::to_string(ref.index) + " of track " + std::to_string(ref.track));
    }
    const Positions& track = (*by_kind)[ref.track];
    return track.moved_to.empty() ? ref.index : track.moved_to[ref.index];
  }
};

std::uint32_t TraceBuilder::add_process(const Process& process) {
  require_string(trace_.strings_, process.name, "process name");
  require_string(trace_.strings_, process.host, "process host");
  trace_.processes_.push_back(process);
  return static_cast<std::uint32_t>(trace_.processes_.size() - 1);
}

std::uint32_t TraceBuilder::add_track(const TrackInfo& track) {
  if (track.process >= trace_.processes_.size()) {
    throw TraceError("track names process " + std::to_string(track.process) + " but only " +
                     std::to_string(trace_.processes_.size()) + " processes exist");
  }
  if (trace_.tracks_.size() > EventRef::kMaxTrack) throw TraceError("too many tracks");
  require_string(trace_.strings_, track.name, "track name");
  trace_.tracks_.emplace_back(track);
  return static_cast<std::uint32_t>(trace_.tracks_.size() - 1);
}

Track& TraceBuilder::track_for_event(std::uint32_t track) {
  if (track >= trace_.tracks_.size()) {
    throw TraceError("event names track " + std::to_string(track) + " but only " +
                     std::to_string(trace_.tracks_.size()) + " tracks exist");
  }
  return trace_.tracks_[track];
}

ArgRange TraceBuilder::append_args(const std::vector<Arg>& args) {
  for (const Arg& arg : args) {
    require_string(trace_.strings_, arg.key, "argument key");
    if (const auto* text = std::get_if<StringArg>(&arg.value))
      require_string(trace_.strings_, text->id, "argument value");
  }
  return arg_runs_.store(trace_.side_.args, trace_.side_.arg_lists, args);
}

template <typename Column>
static std::uint32_t next_index(const Column& column) {
  if (column.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw TraceError("more than 2^32 - 1 events of one kind on one track");
  }
  return static_cast<std::uint32_t>(column.size());
}

static void require_time(TimeNs time, const char* what) {
  if (time > kMaxAbsTimeNs || time < -kMaxAbsTimeNs) {
    throw TraceError(std::string(what) + " at " + std::to_string(time) +
                     " ns lies beyond the 2^62 ns either way that a trace can hold");
  }
}

std::uint32_t TraceBuilder::store_op(const OpInfo& op) {
  ShapeLists& shapes = trace_.side_.shapes;
  const std::uint32_t input_shapes = shape_lists_.find_or_add(
      record_hash(op.input_shapes),
      [&](std::uint32_t stored) { return shapes.equal(stored, op.input_shapes); },
      [&] { return shapes.append(op.input_shapes); });
  return op_records_.store(trace_.side_.op_details,
                           {input_shapes, op.flops, op.bytes_read, op.bytes_written});
}

TensorRun TraceBuilder::append_tensor_ids(const OpInfo& op) {
  if (op.tensors_read.size() > TensorRun::kMaxTensors ||
      op.tensors_written.size() > TensorRun::kMaxTensors) {
    throw TraceError("an operator names " + std::to_string(op.tensors_read.size()) +
                     " tensors read and " + std::to_string(op.tensors_written.size()) +
                     " written, more than the " + std::to_string(TensorRun::kMaxTensors) +
                     " of each a trace holds");
  }
  std::vector<std::uint64_t>& ids = trace_.side_.tensor_ids;
  if (ids.size() + op.tensors_read.size() + op.tensors_written.size() > kNoIndex) {
    throw TraceError("more than 2^32 - 1 tensor ids in one trace");
  }
  const TensorRun run{static_cast<std::uint32_t>(ids.size()),
                      static_cast<std::uint16_t>(op.tensors_read.size()),
                      static_cast<std::uint16_t>(op.tensors_written.size())};
  ids.insert(ids.end(), op.tensors_read.begin(), op.tensors_read.end());
  ids.insert(ids.end(), op.tensors_written.begin(), op.tensors_written.end());
  return run;
}

EventRef TraceBuilder::add_span(std::uint32_t track, const SpanRecord& span) {
  Track& target = track_for_event(track);
  require_time(span.start, "span start");
  require_time(span.end, "span end");
  if (span.end < span.start) {
    throw TraceError("span ends (" + std::to_string(span.end) + " ns) before it starts (" +
                     std::to_string(span.start) + " ns)");
  }
  require_string(trace_.strings_, span.name, "span name");
  const std::uint32_t index = next_index(target.spans_);
  std::uint32_t detail_index = kNoIndex;
  TensorRun tensors;
  if (span.kernel || span.copy || span.op || !span.args.empty()) {
    SpanDetail detail;
    if (span.kernel) detail.kernel = kernel_records_.store(trace_.side_.kernels, *span.kernel);
    if (span.copy) detail.copy = copy_records_.store(trace_.side_.copies, *span.copy);
    if (span.op) {
      detail.op = store_op(*span.op);
      if (!span.op->tensors_read.empty() || !span.op->tensors_written.empty())
        tensors = append_tensor_ids(*span.op);
    }
    detail.args = append_args(span.args);
    detail_index = detail_records_.store(trace_.side_.span_details, detail);
  }
  SpanColumns& spans = target.spans_;
  spans.start.push_back(span.start);
  spans.duration.push_back(static_cast<std::uint64_t>(span.end) -
                           static_cast<std::uint64_t>(span.start));
  spans.name.push_back(span.name);
  spans.detail.push_back(detail_index);
  spans.category.push_back(span.category);
  append_to_lazy_column(spans.correlation, index, span.correlation_id);
  append_to_lazy_column(spans.external_correlation, index, span.external_correlation_id);
  append_to_lazy_column(spans.tensors, index, tensors);
  return {EventKind::kSpan, track, index};
}

EventRef TraceBuilder::add_instant(std::uint32_t track, const InstantRecord& instant) {
  Track& target = track_for_event(track);
  require_time(instant.time, "instant");
  require_string(trace_.strings_, instant.name, "instant name");
  const std::uint32_t index = next_index(target.instants_);
  InstantColumns& instants = target.instants_;
  instants.time.push_back(instant.time);
  instants.name.push_back(instant.name);
  instants.category.push_back(instant.category);
  instants.args.push_back(append_args(instant.args));
  return {EventKind::kInstant, track, index};
}

EventRef TraceBuilder::add_counter_sample(std::uint32_t track, TimeNs time, double value) {
  Track& target = track_for_event(track);
  require_time(time, "counter sample");
  const std::uint32_t index = next_index(target.counters_);
  target.counters_.time.push_back(time);
  target.counters_.value.push_back(value);
  return {EventKind::kCounterSample, track, index};
}

EventRef TraceBuilder::add_memory_event(std::uint32_t track, const MemoryRecord& event) {
  Track& target = track_for_event(track);
  require_time(event.time, "memory event");
  require_string(trace_.strings_, event.owner_op, "memory event owner");
  require_string(trace_.strings_, event.scope, "memory event scope");
  const std::uint32_t index = next_index(target.memory_);
  MemoryColumns& memory = target.memory_;
  if (memory_contexts_.size() <= track) memory_contexts_.resize(track + 1);
  const std::uint32_t context = memory_contexts_[track].store(
      memory.contexts,
      {event.action, event.device, event.owner_op, event.scope, event.total_reserved});
  memory.time.push_back(event.time);
  memory.address.push_back(event.address);
  memory.bytes.push_back(event.bytes);
  memory.total_allocated.push_back(event.total_allocated);
  memory.context.push_back(context);
  return {EventKind::kMemory, track, index};
}

void TraceBuilder::add_flow(const Flow& flow) {
  flows_.push_back(flow);
}

void TraceBuilder::add_flow_endpoint(const FlowEndpoint& endpoint) {
  track_for_event(endpoint.track);
  flow_endpoints_.push_back(endpoint);
}

void TraceBuilder::add_dropped_events(std::uint64_t count) {
  trace_.metadata_.dropped_events += count;
}

void TraceBuilder::set_metadata_value(std::string_view key, std::string_view value) {
  trace_.metadata_.values[std::string(key)] = std::string(value);
}

void TraceBuilder::shift_times(TimeNs offset) {
  const auto shifted = [offset](TimeNs time) {
    TimeNs moved = 0;
    if (!__builtin_add_overflow(time, offset, &moved)) return moved;
    return offset > 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
  };
  const auto shift = [&](TimeColumn& times) {
    TimeColumn moved;
    moved.reserve(times.size());
    for (const TimeNs time : times)
      moved.push_back(shifted(time));
    times = std::move(moved);
  };
  for (Track& track : trace_.tracks_) {
    // A span's end saturates on its own, as its start does, so its duration is taken anew.
    SpanColumns& spans = track.spans_;
    TimeColumn starts;
    WideningColumn durations;
    starts.reserve(spans.size());
    durations.reserve(spans.size());
    for (std::size_t span = 0; span < spans.size(); ++span) {
      const TimeNs start = shifted(spans.start[span]);
      starts.push_back(start);
      durations.push_back(static_cast<std::uint64_t>(shifted(spans.end(span))) -
                          static_cast<std::uint64_t>(start));
    }
    spans.start = std::move(starts);
    spans.duration = std::move(durations);
    shift(track.instants_.time);
    shift(track.counters_.time);
    shift(track.memory_.time);
  }
  for (FlowEndpoint& endpoint : flow_endpoints_)
    endpoint.time = shifted(endpoint.time);
}

TraceBuilder::SortedPositions TraceBuilder::sort_tracks() {
  SortedPositions positions;
  for (Track& track : trace_.tracks_) {
    SpanColumns& spans = track.spans_;
    positions.spans.push_back(reorder(span_order(spans), spans.size(), spans.start, spans.duration,
                                      spans.name, spans.detail, spans.category, spans.correlation,
                                      spans.external_correlation, spans.tensors));
    InstantColumns& instants = track.instants_;
    positions.instants.push_back(reorder(time_order(instants.time), instants.size(), instants.time,
                                         instants.name, instants.category, instants.args));
    CounterColumns& counters = track.counters_;
    positions.counters.push_back(
        reorder(time_order(counters.time), counters.size(), counters.time, counters.value));
    MemoryColumns& memory = track.memory_;
    positions.memory.push_back(reorder(time_order(memory.time), memory.size(), memory.time,
                                       memory.address, memory.bytes, memory.total_allocated,
                                       memory.context));
  }
  return positions;
}

// Side tables follow the sorted events (track by track, spans then instants, memory contexts per
// track), so two builds of the same events compare equal whatever order they arrived in.
void TraceBuilder::order_side_tables() {
  const SideTables& old = trace_.side_;
  SideTables sorted;
  sorted.span_details.reserve(old.span_details.size());
  sorted.tensor_ids.reserve(old.tensor_ids.size());
  sorted.args.reserve(old.args.size());
  sorted.arg_lists.reserve(old.arg_lists.size());
  Renumbering detail_of(old.span_details.size());
  Renumbering kernel_of(old.kernels.size());
  Renumbering copy_of(old.copies.size());
  Renumbering op_of(old.op_details.size());
  Renumbering shapes_of(old.shapes.size());
  Renumbering arg_of(old.args.size());
  // Each distinct list starts at its own position of the list table.
  Renumbering list_at(old.arg_lists.size());
  const auto move_args = [&](ArgRange range) {
    if (range.count == 0) return ArgRange{};
    const std::uint32_t begin = list_at(range.begin, [&](std::uint32_t first) {
      const auto moved = static_cast<std::uint32_t>(sorted.arg_lists.size());
      for (std::uint32_t entry = first; entry < first + range.count; ++entry) {
        sorted.arg_lists.push_back(arg_of(old.arg_lists[entry], [&](std::uint32_t arg) {
          return append_entry(sorted.args, old.args[arg]);
        }));
      }
      return moved;
    });
    return ArgRange{begin, range.count};
  };
  const auto move_op = [&](std::uint32_t index) {
    OpDetail op = old.op_details[index];
    op.input_shapes = shapes_of(op.input_shapes, [&](std::uint32_t list) {
      return sorted.shapes.append(old.shapes.list(list));
    });
    return append_entry(sorted.op_details, op);
  };
  const auto move_detail = [&](std::uint32_t index) {
    SpanDetail detail = old.span_details[index];
    detail.kernel = kernel_of(detail.kernel, [&](std::uint32_t kernel) {
      return append_entry(sorted.kernels, old.kernels[kernel]);
    });
    detail.copy = copy_of(detail.copy, [&](std::uint32_t copy) {
      return append_entry(sorted.copies, old.copies[copy]);
    });
    detail.op = op_of(detail.op, move_op);
    detail.args = move_args(detail.args);
    return append_entry(sorted.span_details, detail);
  };
  for (Track& track : trace_.tracks_) {
    IndexColumn renumbered;
    renumbered.reserve(track.spans_.detail.size());
    for (const std::uint32_t detail_index : track.spans_.detail)
      renumbered.push_back(detail_of(detail_index, move_detail));
    track.spans_.detail = std::move(renumbered);
    for (TensorRun& run : track.spans_.tensors) {
      const auto ids = std::span<const std::uint64_t>(old.tensor_ids)
                           .subspan(run.begin, std::size_t{run.read} + run.written);
      run.begin = static_cast<std::uint32_t>(sorted.tensor_ids.size());
      sorted.tensor_ids.insert(sorted.tensor_ids.end(), ids.begin(), ids.end());
    }
    for (ArgRange& range : track.instants_.args)
      range = move_args(range);
    MemoryColumns& memory = track.memory_;
    std::vector<MemoryContext> contexts;
    Renumbering context_of(memory.contexts.size());
    for (std::uint32_t& context : memory.context) {
      context = context_of(context, [&](std::uint32_t index) {
        return append_entry(contexts, memory.contexts[index]);
      });
    }
    memory.contexts = std::move(contexts);
  }
  trace_.side_ = std::move(sorted);
}

// A span's depth is the number of earlier spans still open when it starts. A span that overlaps
// its predecessor without being contained in it goes one level deeper, which keeps the spans of
// each level disjoint and the per-level binary search valid.
void TraceBuilder::compute_depths(Track& track) {
  SpanColumns& spans = track.spans_;
  std::vector<TimeNs> open_ends;
  std::vector<std::uint32_t> level_sizes;
  DepthColumn depths;
  depths.reserve(spans.size());
  for (std::size_t span = 0; span < spans.size(); ++span) {
    while (!open_ends.empty() && open_ends.back() <= spans.start[span])
      open_ends.pop_back();
    const std::size_t depth = open_ends.size();
    if (depth >= kMaxDepth) {
      throw TraceError("spans nest deeper than " + std::to_string(kMaxDepth) + " levels on track " +
                       std::string(trace_.strings_.view(track.info_.name)));
    }
    depths.push_back(static_cast<std::uint16_t>(depth));
    open_ends.push_back(spans.end(span));
    if (level_sizes.size() <= depth) level_sizes.resize(depth + 1, 0);
    ++level_sizes[depth];
  }
  spans.depth = std::move(depths);
  track.depth_begin_.assign(level_sizes.size() + 1, 0);
  for (std::size_t depth = 0; depth < level_sizes.size(); ++depth) {
    track.depth_begin_[depth + 1] = track.depth_begin_[depth] + level_sizes[depth];
  }
  if (level_sizes.empty()) track.depth_begin_.clear();
  std::vector<std::uint32_t> by_depth(spans.size());
  std::vector<std::uint32_t> next_slot(track.depth_begin_.begin(),
                                       track.depth_begin_.end() - (level_sizes.empty() ? 0 : 1));
  for (std::uint32_t span = 0; span < spans.size(); ++span) {
    by_depth[next_slot[spans.depth[span]]++] = span;
  }
  track.spans_by_depth_ = {};
  track.spans_by_depth_.reserve(by_depth.size());
  for (const std::uint32_t span : by_depth)
    track.spans_by_depth_.push_back(span);
}

void TraceBuilder::resolve_flow_endpoints() {
  struct Ends {
    std::vector<EventRef> starts;
    std::vector<EventRef> finishes;
  };
  std::map<std::pair<FlowKind, std::uint64_t>, Ends> by_id;
  for (const FlowEndpoint& endpoint : flow_endpoints_) {
    const Track& track = trace_.tracks_[endpoint.track];
    std::uint32_t span = kNoIndex;
    if (endpoint.binding == FlowEndpoint::Binding::kEnclosingSpan) {
      span = track.innermost_span_at(endpoint.time);
    } else if (const std::size_t next = track.first_span_starting_at(endpoint.time);
               next < track.spans().size()) {
      span = static_cast<std::uint32_t>(next);
    }
    if (span == kNoIndex) continue;
    Ends& ends = by_id[{endpoint.kind, endpoint.id}];
    (endpoint.is_start ? ends.starts : ends.finishes)
        .push_back({EventKind::kSpan, endpoint.track, span});
  }
  for (const auto& [key, ends] : by_id) {
    const std::size_t pairs = std::min(ends.starts.size(), ends.finishes.size());
    for (std::size_t pair = 0; pair < pairs; ++pair) {
      flows_.push_back({key.first, key.second, ends.starts[pair], ends.finishes[pair]});
    }
  }
  flow_endpoints_.clear();
}

std::vector<Flow> TraceBuilder::correlated_flows() const {
  struct HostSpan {
    std::uint64_t id;  // the correlation id of a launch, the external id of an op
    EventRef ref;
    std::uint32_t process;
  };
  // Flat vectors sorted by id, in trace order within an id: a trace has an id for every launch,
  // too many for a hash node and a vector each.
  std::vector<HostSpan> launches;
  std::vector<HostSpan> ops;
  // Counted first: grown by doubling, the two vectors were copied over and over (a quarter of
  // the time linking took on a large trace).
  const auto for_each_host_span = [&](auto&& visit) {
    for (std::uint32_t track = 0; track < trace_.tracks_.size(); ++track) {
      const Track& host = trace_.tracks_[track];
      if (host.info_.kind != TrackKind::kHostThread) continue;
      const SpanColumns& spans = host.spans_;
      if (spans.correlation.empty() && spans.external_correlation.empty()) continue;
      const std::uint32_t process = host.info_.process;
      for (std::uint32_t span = 0; span < spans.size(); ++span) {
        const Category category = spans.category[span];
        const EventRef ref{EventKind::kSpan, track, span};
        if (is_launch(category) && spans.correlation_id(span) != 0) {
          visit(launches, HostSpan{spans.correlation_id(span), ref, process});
        } else if (category == Category::kCpuOp && spans.external_correlation_id(span) != 0) {
          visit(ops, HostSpan{spans.external_correlation_id(span), ref, process});
        }
      }
    }
  };
  std::size_t launch_count = 0;
  std::size_t op_count = 0;
  for_each_host_span([&](const std::vector<HostSpan>& into, const HostSpan&) {
    ++(&into == &launches ? launch_count : op_count);
  });
  launches.reserve(launch_count);
  ops.reserve(op_count);
  for_each_host_span(
      [](std::vector<HostSpan>& into, const HostSpan& span) { into.push_back(span); });
  // Ids are given out in time order, so each host track's spans come as a run sorted by id.
  const auto in_id_order = [](const HostSpan& a, const HostSpan& b) { return a.id < b.id; };
  sort_runs(launches.begin(), launches.end(), in_id_order);
  sort_runs(ops.begin(), ops.end(), in_id_order);
  // The spans with `id`. A GPU track's activities come in time order, their ids mostly growing,
  // so each search starts where the track's last one ended (`cursor`) and gallops from there.
  const auto with_id = [](const std::vector<HostSpan>& spans, std::uint64_t id,
                          std::size_t& cursor) {
    const auto below = [id](const HostSpan& span) { return span.id < id; };
    // The first span not below `id` lies in [low, high].
    std::size_t low = 0;
    std::size_t high = spans.size();
    std::size_t step = 1;
    if (cursor < spans.size() && below(spans[cursor])) {
      low = cursor + 1;
      for (; low + step - 1 < spans.size() && below(spans[low + step - 1]); step *= 2)
        low += step;
      high = std::min(spans.size(), low + step - 1);
    } else if (cursor < spans.size()) {
      high = cursor;
      for (; high >= step && !below(spans[high - step]); step *= 2)
        high -= step;
      low = high >= step ? high - step + 1 : 0;
    }
    const auto begin = spans.begin() + static_cast<std::ptrdiff_t>(low);
    const auto first =
        std::partition_point(begin, spans.begin() + static_cast<std::ptrdiff_t>(high), below);
    auto last = first;
    while (last != spans.end() && last->id == id)
      ++last;
    cursor = static_cast<std::size_t>(first - spans.begin());
    return std::span<const HostSpan>(first, last);
  };
  // Correlation ids are unique within one process; when several processes reuse one, only a
  // launch from the GPU track's own process is trusted.
  const auto pick = [](std::span<const HostSpan> candidates,
                       std::uint32_t process) -> const HostSpan* {
    if (candidates.size() == 1) return &candidates.front();
    for (const HostSpan& candidate : candidates) {
      if (candidate.process == process) return &candidate;
    }
    return nullptr;
  };
  const auto span_of = [this](EventRef ref) {
    const SpanColumns& spans = trace_.tracks_[ref.track].spans_;
    return std::make_pair(spans.start[ref.index], spans.end(ref.index));
  };
  // The op that ran a GPU activity encloses the call that launched it. Older Kineto traces reuse
  // "External id" numbers across unrelated events (a kernel's External id equal to its
  // correlation, say), so an op with the right id elsewhere in time is not the one; without a
  // known launch, the op must at least start before the activity.
  const auto running_op = [&](std::span<const HostSpan> candidates, std::uint32_t process,
                              const HostSpan* launch, EventRef target) -> const HostSpan* {
    const HostSpan* best = nullptr;
    TimeNs best_start = std::numeric_limits<TimeNs>::min();
    for (const HostSpan& candidate : candidates) {
      const auto [start, end] = span_of(candidate.ref);
      bool fits = false;
      if (launch != nullptr) {
        const auto [launch_start, launch_end] = span_of(launch->ref);
        // Same process, not same track: our profiler keeps CUDA API calls on a row of their
        // own beside the thread's ops.
        fits = candidate.process == launch->process && start <= launch_start && launch_end <= end;
      } else {
        fits = candidate.process == process && start <= span_of(target).first;
      }
      // The innermost op that fits: the latest start.
      if (fits && (best == nullptr || start > best_start)) {
        best = &candidate;
        best_start = start;
      }
    }
    return best;
  };
  std::vector<Flow> linked;
  for (std::uint32_t track = 0; track < trace_.tracks_.size(); ++track) {
    const Track& gpu = trace_.tracks_[track];
    if (gpu.info_.kind != TrackKind::kGpuStream) continue;
    std::size_t launch_cursor = 0;
    std::size_t op_cursor = 0;
    const SpanColumns& spans = gpu.spans_;
    for (std::uint32_t span = 0; span < spans.size(); ++span) {
      if (!is_gpu_activity(spans.category[span])) continue;
      const std::uint32_t correlation = spans.correlation_id(span);
      const std::uint64_t external = spans.external_correlation_id(span);
      const EventRef target{EventKind::kSpan, track, span};
      const HostSpan* launch = nullptr;
      if (const auto found = with_id(launches, correlation, launch_cursor); !found.empty()) {
        launch = pick(found, gpu.info_.process);
        if (launch != nullptr) {
          linked.push_back({FlowKind::kLaunchToKernel, correlation, launch->ref, target});
        }
      }
      if (const auto found = with_id(ops, external, op_cursor); !found.empty()) {
        if (const HostSpan* op = running_op(found, gpu.info_.process, launch, target)) {
          linked.push_back({FlowKind::kOpToKernel, external, op->ref, target});
        }
      }
    }
  }
  return linked;
}

// Correlation ids name both ends exactly; a flow event in the file only binds by time, which picks
// a zero-length neighbour that starts at the same microsecond. Where both exist for one activity,
// the correlation's wins. Linked targets are marked per track and span, one bit per kind: a lookup
// per flow of the file without searching.
void TraceBuilder::prefer_correlated_flows(const std::vector<Flow>& linked) {
  std::vector<std::vector<std::uint8_t>> linked_kinds(trace_.tracks_.size());
  const auto kind_bit = [](FlowKind kind) -> std::uint8_t {
    return kind == FlowKind::kOpToKernel ? 2 : 1;
  };
  for (const Flow& flow : linked) {
    std::vector<std::uint8_t>& marks = linked_kinds[flow.to.track];
    if (marks.empty()) marks.resize(trace_.tracks_[flow.to.track].spans_.size());
    marks[flow.to.index] |= kind_bit(flow.kind);
  }
  std::erase_if(flows_, [&](const Flow& flow) {
    if (flow.kind != FlowKind::kLaunchToKernel && flow.kind != FlowKind::kOpToKernel) return false;
    if (flow.to.kind != EventKind::kSpan) return false;
    const std::vector<std::uint8_t>& marks = linked_kinds[flow.to.track];
    return !marks.empty() && (marks[flow.to.index] & kind_bit(flow.kind)) != 0;
  });
  flows_.insert(flows_.end(), linked.begin(), linked.end());
}

Trace TraceBuilder::finalize(const FinalizeOptions& options) {
  // What kept side-table entries distinct is of no use once events stop arriving; freed first, it
  // lowers the peak of what finalize holds.
  arg_runs_ = {};
  detail_records_ = {};
  kernel_records_ = {};
  copy_records_ = {};
  op_records_ = {};
  shape_lists_ = {};
  memory_contexts_ = {};
  const SortedPositions positions = sort_tracks();
  for (Flow& flow : flows_) {
    flow.from.index = positions.map(flow.from);
    flow.to.index = positions.map(flow.to);
  }
  order_side_tables();
  for (Track& track : trace_.tracks_)
    compute_depths(track);
  resolve_flow_endpoints();
  if (options.link_correlated_events) prefer_correlated_flows(correlated_flows());

  // Sorted in two halves on two cores, then merged into the trace's table, each flow once.
  const auto before = [](const Flow& a, const Flow& b) {
    return std::tie(a.from, a.to, a.kind, a.id) < std::tie(b.from, b.to, b.kind, b.id);
  };
  const auto half = flows_.begin() + static_cast<std::ptrdiff_t>(flows_.size() / 2);
  run_both(
      flows_.size(), [&] { std::sort(flows_.begin(), half, before); },
      [&] { std::sort(half, flows_.end(), before); });
  trace_.flows_.reserve(flows_.size());
  const Flow* kept = nullptr;
  for (auto left = flows_.begin(), right = half; left != half || right != flows_.end();) {
    const bool from_left = right == flows_.end() || (left != half && !before(*right, *left));
    const Flow& next = from_left ? *left++ : *right++;
    if (kept != nullptr && kept->from == next.from && kept->to == next.to &&
        kept->kind == next.kind) {
      continue;
    }
    trace_.flows_.push_back(next);
    kept = &next;
  }
  flows_ = {};

  release_spare_capacity();
  Trace finished = std::move(trace_);
  trace_ = Trace{};
  flow_endpoints_ = {};
  // A large trace's growth and sort buffers are not coming back, so the finished trace alone
  // stays resident.
  const TraceCounts counts = finished.counts();
  if (counts.spans + counts.instants + counts.counter_samples + counts.memory_events >=
      kTrimFromEvents) {
    return_free_heap_to_system();
  }
  return finished;
}

// Columns grow by doubling while events arrive; a finished trace is immutable, so each is cut to
// its contents, one at a time so that no second copy of the whole trace is ever held.
void TraceBuilder::release_spare_capacity() {
  const auto fit = [](auto&... columns) { (columns.shrink_to_fit(), ...); };
  for (Track& track : trace_.tracks_) {
    SpanColumns& spans = track.spans_;
    fit(spans.start, spans.duration, spans.name, spans.detail, spans.category, spans.depth,
        spans.correlation, spans.external_correlation, spans.tensors);
    InstantColumns& instants = track.instants_;
    fit(instants.time, instants.name, instants.category, instants.args);
    fit(track.counters_.time, track.counters_.value);
    MemoryColumns& memory = track.memory_;
    fit(memory.time, memory.address, memory.bytes, memory.total_allocated, memory.context,
        memory.contexts);
    fit(track.spans_by_depth_, track.depth_begin_);
  }
  trace_.side_.shapes.shrink_to_fit();
  trace_.flows_.shrink_to_fit();
  fit(trace_.processes_, trace_.tracks_, trace_.side_.span_details, trace_.side_.kernels,
      trace_.side_.copies, trace_.side_.op_details, trace_.side_.tensor_ids, trace_.side_.args,
      trace_.side_.arg_lists);
}

}  // namespace tscope::trace
