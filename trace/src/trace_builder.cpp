#include "tscope/trace/trace_builder.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "tscope/trace/arg_runs.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/record_interner.h"
#include "tscope/trace/time_range.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tscope::trace {
namespace {

constexpr std::size_t kMaxDepth = std::numeric_limits<std::uint16_t>::max();

// Where each event of one kind on one track moved when its column was sorted:
// moved_to[arrival index] = sorted index, left empty when the events arrived already in order
// (the common case: .tsc files and most recorders), which spares a copy of every column.
struct Positions {
  std::vector<std::uint32_t> moved_to;
  std::size_t size = 0;
};

template <typename Column>
void apply_order(Column& column, const std::vector<std::uint32_t>& order) {
  if (order.empty()) return;
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
std::vector<std::uint32_t> time_order(const std::vector<TimeNs>& time) {
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
    return spans.end[a] > spans.end[b];
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
  return arg_runs_.store(trace_.args_, args);
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
  if (span.correlation_id != 0 || span.external_correlation_id != 0 || span.kernel || span.copy ||
      span.op || !span.args.empty()) {
    SpanDetail detail;
    detail.correlation_id = span.correlation_id;
    detail.external_correlation_id = span.external_correlation_id;
    if (span.kernel) detail.kernel = kernel_records_.store(trace_.kernels_, *span.kernel);
    if (span.copy) detail.copy = copy_records_.store(trace_.copies_, *span.copy);
    if (span.op) detail.op = op_records_.store(trace_.ops_, *span.op);
    detail.args = append_args(span.args);
    detail_index = static_cast<std::uint32_t>(trace_.span_details_.size());
    trace_.span_details_.push_back(detail);
  }
  SpanColumns& spans = target.spans_;
  spans.start.push_back(span.start);
  spans.end.push_back(span.end);
  spans.name.push_back(span.name);
  spans.detail.push_back(detail_index);
  spans.category.push_back(span.category);
  spans.depth.push_back(0);
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
  memory.time.push_back(event.time);
  memory.action.push_back(event.action);
  memory.address.push_back(event.address);
  memory.bytes.push_back(event.bytes);
  memory.device.push_back(event.device);
  memory.owner_op.push_back(event.owner_op);
  memory.scope.push_back(event.scope);
  memory.total_allocated.push_back(event.total_allocated);
  memory.total_reserved.push_back(event.total_reserved);
  return {EventKind::kMemory, track, index};
}

void TraceBuilder::add_flow(const Flow& flow) {
  trace_.flows_.push_back(flow);
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
  const auto shift = [&](std::vector<TimeNs>& times) {
    for (TimeNs& time : times)
      time = shifted(time);
  };
  for (Track& track : trace_.tracks_) {
    shift(track.spans_.start);
    shift(track.spans_.end);
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
    positions.spans.push_back(reorder(span_order(spans), spans.size(), spans.start, spans.end,
                                      spans.name, spans.detail, spans.category));
    InstantColumns& instants = track.instants_;
    positions.instants.push_back(reorder(time_order(instants.time), instants.size(), instants.time,
                                         instants.name, instants.category, instants.args));
    CounterColumns& counters = track.counters_;
    positions.counters.push_back(
        reorder(time_order(counters.time), counters.size(), counters.time, counters.value));
    MemoryColumns& memory = track.memory_;
    positions.memory.push_back(reorder(time_order(memory.time), memory.size(), memory.time,
                                       memory.action, memory.address, memory.bytes, memory.device,
                                       memory.owner_op, memory.scope, memory.total_allocated,
                                       memory.total_reserved));
  }
  return positions;
}

// Side tables follow the sorted events (track by track, spans then instants), so two builds of
// the same events compare equal whatever order they arrived in.
void TraceBuilder::order_side_tables() {
  std::vector<SpanDetail> details;
  std::vector<KernelInfo> kernels;
  std::vector<CopyInfo> copies;
  std::vector<OpInfo> ops;
  std::vector<Arg> args;
  details.reserve(trace_.span_details_.size());
  args.reserve(trace_.args_.size());
  // The lists and records keep being stored once each, now in event order.
  ArgRuns runs;
  RecordInterner<KernelInfo> kernel_records;
  RecordInterner<CopyInfo> copy_records;
  RecordInterner<OpInfo> op_records;
  const auto move_args = [&](ArgRange range) {
    return runs.store(args, std::span<const Arg>(trace_.args_).subspan(range.begin, range.count));
  };
  const auto move_entry = [](const auto& from, auto& to, auto& records, std::uint32_t index) {
    return index == kNoIndex ? kNoIndex : records.store(to, from[index]);
  };
  for (Track& track : trace_.tracks_) {
    for (std::uint32_t& detail_index : track.spans_.detail) {
      if (detail_index == kNoIndex) continue;
      SpanDetail detail = trace_.span_details_[detail_index];
      detail.kernel = move_entry(trace_.kernels_, kernels, kernel_records, detail.kernel);
      detail.copy = move_entry(trace_.copies_, copies, copy_records, detail.copy);
      detail.op = move_entry(trace_.ops_, ops, op_records, detail.op);
      detail.args = move_args(detail.args);
      details.push_back(detail);
      detail_index = static_cast<std::uint32_t>(details.size() - 1);
    }
    for (ArgRange& range : track.instants_.args)
      range = move_args(range);
  }
  trace_.span_details_ = std::move(details);
  trace_.kernels_ = std::move(kernels);
  trace_.copies_ = std::move(copies);
  trace_.ops_ = std::move(ops);
  trace_.args_ = std::move(args);
}

// A span's depth is the number of earlier spans still open when it starts. A span that overlaps
// its predecessor without being contained in it goes one level deeper, which keeps the spans of
// each level disjoint and the per-level binary search valid.
void TraceBuilder::compute_depths(Track& track) {
  SpanColumns& spans = track.spans_;
  std::vector<TimeNs> open_ends;
  std::vector<std::uint32_t> level_sizes;
  for (std::size_t span = 0; span < spans.size(); ++span) {
    while (!open_ends.empty() && open_ends.back() <= spans.start[span])
      open_ends.pop_back();
    const std::size_t depth = open_ends.size();
    if (depth >= kMaxDepth) {
      throw TraceError("spans nest deeper than " + std::to_string(kMaxDepth) + " levels on track " +
                       std::string(trace_.strings_.view(track.info_.name)));
    }
    spans.depth[span] = static_cast<std::uint16_t>(depth);
    open_ends.push_back(spans.end[span]);
    if (level_sizes.size() <= depth) level_sizes.resize(depth + 1, 0);
    ++level_sizes[depth];
  }
  track.depth_begin_.assign(level_sizes.size() + 1, 0);
  for (std::size_t depth = 0; depth < level_sizes.size(); ++depth) {
    track.depth_begin_[depth + 1] = track.depth_begin_[depth] + level_sizes[depth];
  }
  if (level_sizes.empty()) track.depth_begin_.clear();
  track.spans_by_depth_.resize(spans.size());
  std::vector<std::uint32_t> next_slot(track.depth_begin_.begin(),
                                       track.depth_begin_.end() - (level_sizes.empty() ? 0 : 1));
  for (std::uint32_t span = 0; span < spans.size(); ++span) {
    track.spans_by_depth_[next_slot[spans.depth[span]]++] = span;
  }
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
      trace_.flows_.push_back({key.first, key.second, ends.starts[pair], ends.finishes[pair]});
    }
  }
  flow_endpoints_.clear();
}

void TraceBuilder::link_correlated_events() {
  struct HostSpan {
    EventRef ref;
    std::uint32_t process;
  };
  std::unordered_map<std::uint64_t, std::vector<HostSpan>> launches;
  std::unordered_map<std::uint64_t, std::vector<HostSpan>> ops;
  for (std::uint32_t track = 0; track < trace_.tracks_.size(); ++track) {
    const Track& host = trace_.tracks_[track];
    if (host.info_.kind != TrackKind::kHostThread) continue;
    for (std::uint32_t span = 0; span < host.spans_.size(); ++span) {
      const std::uint32_t detail = host.spans_.detail[span];
      if (detail == kNoIndex) continue;
      const SpanDetail& info = trace_.span_details_[detail];
      const Category category = host.spans_.category[span];
      const HostSpan entry{{EventKind::kSpan, track, span}, host.info_.process};
      if (is_launch(category) && info.correlation_id != 0) {
        launches[info.correlation_id].push_back(entry);
      } else if (category == Category::kCpuOp && info.external_correlation_id != 0) {
        ops[info.external_correlation_id].push_back(entry);
      }
    }
  }
  // Correlation ids are unique within one process; when several processes reuse one, only a
  // launch from the GPU track's own process is trusted.
  const auto pick = [](const std::vector<HostSpan>& candidates,
                       std::uint32_t process) -> const HostSpan* {
    if (candidates.size() == 1) return &candidates.front();
    for (const HostSpan& candidate : candidates) {
      if (candidate.process == process) return &candidate;
    }
    return nullptr;
  };
  const auto span_of = [this](EventRef ref) {
    const SpanColumns& spans = trace_.tracks_[ref.track].spans_;
    return std::make_pair(spans.start[ref.index], spans.end[ref.index]);
  };
  // The op that ran a GPU activity encloses the call that launched it. Older Kineto traces reuse
  // "External id" numbers across unrelated events (a kernel's External id equal to its
  // correlation, say), so an op with the right id elsewhere in time is not the one; without a
  // known launch, the op must at least start before the activity.
  const auto running_op = [&](const std::vector<HostSpan>& candidates, std::uint32_t process,
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
    for (std::uint32_t span = 0; span < gpu.spans_.size(); ++span) {
      const std::uint32_t detail = gpu.spans_.detail[span];
      if (detail == kNoIndex || !is_gpu_activity(gpu.spans_.category[span])) continue;
      const SpanDetail& info = trace_.span_details_[detail];
      const EventRef target{EventKind::kSpan, track, span};
      const HostSpan* launch = nullptr;
      if (const auto found = launches.find(info.correlation_id); found != launches.end()) {
        launch = pick(found->second, gpu.info_.process);
        if (launch != nullptr) {
          linked.push_back({FlowKind::kLaunchToKernel, info.correlation_id, launch->ref, target});
        }
      }
      if (const auto found = ops.find(info.external_correlation_id); found != ops.end()) {
        if (const HostSpan* op = running_op(found->second, gpu.info_.process, launch, target)) {
          linked.push_back({FlowKind::kOpToKernel, info.external_correlation_id, op->ref, target});
        }
      }
    }
  }
  // Correlation ids name both ends exactly; a flow event in the file only binds by time, which
  // picks a zero-length neighbour that starts at the same microsecond. Where both exist for one
  // activity, the correlation's wins.
  std::unordered_set<std::uint64_t> linked_targets[2];
  for (const Flow& flow : linked) {
    linked_targets[flow.kind == FlowKind::kOpToKernel].insert(flow.to.pack());
  }
  std::erase_if(trace_.flows_, [&](const Flow& flow) {
    if (flow.kind != FlowKind::kLaunchToKernel && flow.kind != FlowKind::kOpToKernel) return false;
    return linked_targets[flow.kind == FlowKind::kOpToKernel].contains(flow.to.pack());
  });
  trace_.flows_.insert(trace_.flows_.end(), linked.begin(), linked.end());
}

Trace TraceBuilder::finalize(const FinalizeOptions& options) {
  const SortedPositions positions = sort_tracks();
  for (Flow& flow : trace_.flows_) {
    flow.from.index = positions.map(flow.from);
    flow.to.index = positions.map(flow.to);
  }
  order_side_tables();
  for (Track& track : trace_.tracks_)
    compute_depths(track);
  resolve_flow_endpoints();
  if (options.link_correlated_events) link_correlated_events();

  std::vector<Flow>& flows = trace_.flows_;
  std::sort(flows.begin(), flows.end(), [](const Flow& a, const Flow& b) {
    return std::tie(a.from, a.to, a.kind, a.id) < std::tie(b.from, b.to, b.kind, b.id);
  });
  flows.erase(std::unique(flows.begin(), flows.end(),
                          [](const Flow& a, const Flow& b) {
                            return a.from == b.from && a.to == b.to && a.kind == b.kind;
                          }),
              flows.end());

  release_spare_capacity();
  Trace finished = std::move(trace_);
  trace_ = Trace{};
  flow_endpoints_ = {};
  arg_runs_ = {};
  kernel_records_ = {};
  copy_records_ = {};
  op_records_ = {};
#if defined(__GLIBC__)
  // glibc keeps freed heap blocks for reuse; the builder's growth and sort buffers are not
  // coming back, so the finished trace alone stays resident.
  malloc_trim(0);
#endif
  return finished;
}

// Columns grow by doubling while events arrive; a finished trace is immutable, so each is cut to
// its contents, one at a time so that no second copy of the whole trace is ever held.
void TraceBuilder::release_spare_capacity() {
  const auto fit = [](auto&... columns) { (columns.shrink_to_fit(), ...); };
  for (Track& track : trace_.tracks_) {
    SpanColumns& spans = track.spans_;
    fit(spans.start, spans.end, spans.name, spans.detail, spans.category, spans.depth);
    InstantColumns& instants = track.instants_;
    fit(instants.time, instants.name, instants.category, instants.args);
    fit(track.counters_.time, track.counters_.value);
    MemoryColumns& memory = track.memory_;
    fit(memory.time, memory.action, memory.address, memory.bytes, memory.device, memory.owner_op,
        memory.scope, memory.total_allocated, memory.total_reserved);
    fit(track.spans_by_depth_, track.depth_begin_);
  }
  for (OpInfo& op : trace_.ops_) {
    fit(op.input_shapes, op.tensors_read, op.tensors_written);
    for (auto& shape : op.input_shapes)
      shape.shrink_to_fit();
  }
  fit(trace_.processes_, trace_.tracks_, trace_.flows_, trace_.span_details_, trace_.kernels_,
      trace_.copies_, trace_.ops_, trace_.args_);
}

}  // namespace tscope::trace
