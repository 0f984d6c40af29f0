#include "collector.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>

#include "tscope/profiler/session.h"

namespace tscope::profiler {
namespace {

std::string process_name() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return {};
  return name.data();
}

}  // namespace

Collector::Collector(trace::TscWriter& sink, std::uint32_t generation, const TickClock& clock)
    : sink_(sink), clock_(clock) {
  accept_generation(generation);
  trace::Process process;
  process.pid = getpid();
  process.name = sink_.intern(process_name());
  process.host = sink_.intern(host_name());
  process_ = sink_.add_process(process);
  // Whatever an earlier session left in the buffers is not ours.
  for (const auto& buffer : ThreadBufferRegistry::instance().snapshot()) {
    buffer->ring.discard();
    const std::uint64_t dropped = buffer->dropped.load(std::memory_order_relaxed);
    threads_[buffer.get()] = {buffer, std::nullopt, {}, dropped, dropped};
  }
}

void Collector::drain(std::optional<trace::TimeNs> retired_end) {
  for (const auto& buffer : ThreadBufferRegistry::instance().snapshot()) {
    auto [entry, inserted] = threads_.try_emplace(buffer.get());
    ThreadState& thread = entry->second;
    if (inserted) thread.buffer = buffer;
    // Read before draining: a thread that has exited appends nothing after this.
    const bool retired = buffer->retired.load(std::memory_order_acquire);
    buffer->ring.drain([&](const RecordHeader& header, const std::byte* record) {
      if (generations_.test(header.generation)) visit(thread, header, record);
    });
    report_drops(thread);
    if (retired) {
      const trace::TimeNs end = retired_end.value_or(monotonic_ns());
      while (!thread.open.empty())
        close_range(thread, end, true);
      ThreadBufferRegistry::instance().remove(buffer.get());
      threads_.erase(entry);
    }
  }
}

void Collector::report_drops(ThreadState& thread) {
  const std::uint64_t dropped = thread.buffer->dropped.load(std::memory_order_relaxed);
  if (dropped > thread.dropped_seen) {
    sink_.add_dropped_events(dropped - thread.dropped_seen);
    dropped_reported_ += dropped - thread.dropped_seen;
    thread.dropped_seen = dropped;
    // Per thread too, so that recorded + dropped can be checked against what each thread emitted.
    sink_.set_metadata_value(
        std::string(kDroppedEventsOfThreadKey) + std::to_string(thread.buffer->thread_id),
        std::to_string(dropped - thread.dropped_at_start));
  }
}

void Collector::add_counter_sample(std::string_view static_name, trace::TimeNs time, double value) {
  sink_.add_counter_sample(counter_track(intern({static_name, true})), time, value);
  ++events_;
}

void Collector::accept_generation(std::uint32_t generation) {
  generations_.set(generation & 0xff);
  capture_closed_at_.reset();
}

void Collector::close_capture(trace::TimeNs end) {
  // Set before draining: a range that ended after the pause, but before this writer woke to see
  // it, ends at the pause like the ranges still open.
  capture_closed_at_ = end;
  drain();
  close_open_ranges(end);
}

void Collector::close_open_ranges(trace::TimeNs end) {
  for (auto& [buffer, thread] : threads_) {
    while (!thread.open.empty())
      close_range(thread, end, true);
  }
}

void Collector::finish(trace::TimeNs end) {
  drain(end);
  close_open_ranges(end);
  for (auto& [id, async] : async_ranges_) {
    add_span(async.track, std::move(async.range), end, std::nullopt, true);
  }
  async_ranges_.clear();
}

trace::StringId Collector::intern(const wire::Text& text) {
  if (!text.is_static) return sink_.intern(text.text);
  const auto key = std::make_pair(text.text.data(), text.text.size());
  if (const auto found = static_strings_.find(key); found != static_strings_.end()) {
    return found->second;
  }
  const trace::StringId id = sink_.intern(text.text);
  static_strings_.emplace(key, id);
  return id;
}

std::uint32_t Collector::thread_track(ThreadState& thread) {
  if (!thread.track) {
    const ThreadBuffer& buffer = *thread.buffer;
    std::string name = buffer.thread_name;
    if (const auto named = thread_names_.find(buffer.thread_id); named != thread_names_.end()) {
      name = named->second;
    }
    if (name.empty()) name = "thread " + std::to_string(buffer.thread_id);
    trace::TrackInfo info;
    info.kind = trace::TrackKind::kHostThread;
    info.name = sink_.intern(name);
    info.process = process_;
    info.thread_id = buffer.thread_id;
    info.sort_index = buffer.thread_id == getpid() ? 0 : 1;
    thread.track = sink_.add_track(info);
  }
  return *thread.track;
}

std::uint32_t Collector::counter_track(trace::StringId name) {
  if (const auto found = counter_tracks_.find(name); found != counter_tracks_.end()) {
    return found->second;
  }
  trace::TrackInfo info;
  info.kind = trace::TrackKind::kCounter;
  info.name = name;
  info.process = process_;
  const std::uint32_t track = sink_.add_track(info);
  counter_tracks_.emplace(name, track);
  return track;
}

std::uint32_t Collector::memory_track(std::int32_t device) {
  if (const auto found = memory_tracks_.find(device); found != memory_tracks_.end()) {
    return found->second;
  }
  trace::TrackInfo info;
  info.kind = trace::TrackKind::kMemoryPool;
  info.name = sink_.intern(device < 0 ? std::string("host memory")
                                      : "cuda:" + std::to_string(device) + " memory");
  info.process = process_;
  info.device = device;
  const std::uint32_t track = sink_.add_track(info);
  memory_tracks_.emplace(device, track);
  return track;
}

std::vector<trace::Arg> Collector::read_args(wire::ByteReader& in) {
  const auto count = in.get<std::uint8_t>();
  std::vector<trace::Arg> args;
  args.reserve(count);
  for (std::uint8_t i = 0; i < count; ++i) {
    trace::Arg arg;
    arg.key = intern(wire::get_text(in));
    switch (in.get<Arg::Type>()) {
      case Arg::Type::kInt:
        arg.value = in.get<std::int64_t>();
        break;
      case Arg::Type::kDouble:
        arg.value = in.get<double>();
        break;
      case Arg::Type::kText:
        arg.value = trace::StringArg{intern(wire::get_text(in))};
        break;
    }
    args.push_back(arg);
  }
  return args;
}

Collector::OpenRange Collector::read_range(wire::ByteReader& in, trace::Category category) {
  OpenRange range;
  range.start = clock_.to_ns(in.get<Ticks>());
  range.name = intern(wire::get_text(in));
  range.category = category;
  range.args = read_args(in);
  return range;
}

void Collector::add_span(std::uint32_t track, OpenRange range, trace::TimeNs end,
                         std::optional<trace::OpInfo> op, bool unfinished) {
  trace::SpanRecord span;
  span.start = range.start;
  // The tick-to-ns map is refined between anchors; never let that turn a span inside out.
  span.end = std::max(end, range.start);
  span.name = range.name;
  span.category = range.category;
  span.external_correlation_id = range.external_correlation_id;
  span.op = std::move(op);
  span.args = std::move(range.args);
  if (unfinished) span.args.push_back({sink_.intern("unfinished"), std::int64_t{1}});
  const trace::EventRef ref = sink_.add_span(track, span);
  ++events_;
  for (const FlowEnd& flow : range.flows)
    bind_flow(flow, ref);
}

void Collector::bind_flow(const FlowEnd& end, trace::EventRef ref) {
  FlowRefs& refs = flows_[{end.id, end.kind}];
  (end.is_start ? refs.from : refs.to) = ref;
  if (refs.from && refs.to) {
    sink_.add_flow({end.kind, end.id, *refs.from, *refs.to});
    flows_.erase({end.id, end.kind});
  }
}

void Collector::close_range(ThreadState& thread, trace::TimeNs end, bool unfinished) {
  OpenRange range = std::move(thread.open.back());
  thread.open.pop_back();
  if (range.after_close) return;
  add_span(thread_track(thread), std::move(range), end, std::nullopt, unfinished);
}

bool Collector::after_close(trace::TimeNs time) const {
  return capture_closed_at_ && time > *capture_closed_at_;
}

void Collector::visit(ThreadState& thread, const RecordHeader& header, const std::byte* record) {
  wire::ByteReader in(record + sizeof(RecordHeader));
  switch (header.kind) {
    case RecordKind::kPadding:
      break;
    case RecordKind::kBegin:
      thread.open.push_back(read_range(in, static_cast<trace::Category>(header.aux)));
      thread.open.back().after_close = after_close(thread.open.back().start);
      break;
    case RecordKind::kEnd:
      // An end whose begin belonged to an earlier session has nothing to close.
      if (!thread.open.empty()) {
        const trace::TimeNs end = clock_.to_ns(in.get<Ticks>());
        if (capture_closed_at_ && end > *capture_closed_at_) {
          close_range(thread, std::max(thread.open.back().start, *capture_closed_at_), true);
        } else {
          close_range(thread, end, false);
        }
      }
      break;
    case RecordKind::kInstant: {
      const OpenRange range = read_range(in, static_cast<trace::Category>(header.aux));
      trace::InstantRecord instant;
      instant.time = range.start;
      instant.name = range.name;
      instant.category = range.category;
      instant.args = range.args;
      if (after_close(instant.time)) break;
      sink_.add_instant(thread_track(thread), instant);
      ++events_;
      break;
    }
    case RecordKind::kCounter: {
      const trace::TimeNs time = clock_.to_ns(in.get<Ticks>());
      const trace::StringId name = intern(wire::get_text(in));
      const double value = in.get<double>();
      if (after_close(time)) break;
      sink_.add_counter_sample(counter_track(name), time, value);
      ++events_;
      break;
    }
    case RecordKind::kFlow: {
      FlowEnd flow;
      flow.id = in.get<std::uint64_t>();
      flow.kind = static_cast<trace::FlowKind>(header.aux);
      flow.is_start = in.get<std::uint8_t>() != 0;
      if (!thread.open.empty()) thread.open.back().flows.push_back(flow);
      break;
    }
    case RecordKind::kMemory: {
      trace::MemoryRecord memory;
      memory.time = clock_.to_ns(in.get<Ticks>());
      memory.action = static_cast<trace::MemoryAction>(header.aux);
      memory.address = in.get<std::uint64_t>();
      memory.bytes = in.get<std::uint64_t>();
      memory.device = in.get<std::int32_t>();
      memory.owner_op = intern(wire::get_text(in));
      memory.scope = thread.open.empty() ? trace::kEmptyString : thread.open.back().name;
      memory.total_allocated = in.get<std::uint64_t>();
      memory.total_reserved = in.get<std::uint64_t>();
      if (after_close(memory.time)) break;
      sink_.add_memory_event(memory_track(memory.device), memory);
      ++events_;
      break;
    }
    case RecordKind::kOp: {
      OpenRange range;
      range.start = clock_.to_ns(in.get<Ticks>());
      const trace::TimeNs end = clock_.to_ns(in.get<Ticks>());
      range.name = intern(wire::get_text(in));
      range.category = static_cast<trace::Category>(header.aux);
      range.external_correlation_id = in.get<std::uint64_t>();
      trace::OpInfo op;
      op.flops = in.get<std::uint64_t>();
      op.bytes_read = in.get<std::uint64_t>();
      op.bytes_written = in.get<std::uint64_t>();
      const auto inputs = in.get<std::uint32_t>();
      op.input_shapes.resize(inputs);
      op.tensors_read.resize(inputs);
      for (std::uint32_t i = 0; i < inputs; ++i) {
        op.tensors_read[i] = in.get<std::uint64_t>();
        const auto dims = in.get<std::uint32_t>();
        op.input_shapes[i].resize(dims);
        for (auto& dim : op.input_shapes[i])
          dim = in.get<std::int64_t>();
      }
      op.tensors_written.resize(in.get<std::uint32_t>());
      for (auto& id : op.tensors_written)
        id = in.get<std::uint64_t>();
      if (after_close(range.start)) break;
      if (after_close(end)) {
        add_span(thread_track(thread), std::move(range), *capture_closed_at_, std::move(op), true);
        break;
      }
      add_span(thread_track(thread), std::move(range), end, std::move(op), false);
      break;
    }
    case RecordKind::kAsyncBegin: {
      const auto id = in.get<std::uint64_t>();
      OpenRange range = read_range(in, static_cast<trace::Category>(header.aux));
      if (const auto ended = early_async_ends_.find(id); ended != early_async_ends_.end()) {
        add_span(thread_track(thread), std::move(range), ended->second, std::nullopt, false);
        early_async_ends_.erase(ended);
      } else {
        async_ranges_[id] = {std::move(range), thread_track(thread)};
      }
      break;
    }
    case RecordKind::kAsyncEnd: {
      const trace::TimeNs end = clock_.to_ns(in.get<Ticks>());
      const auto id = in.get<std::uint64_t>();
      const auto found = async_ranges_.find(id);
      if (found == async_ranges_.end()) {
        // The ending thread's buffer was drained before the starting thread's.
        early_async_ends_[id] = end;
        break;
      }
      add_span(found->second.track, std::move(found->second.range), end, std::nullopt, false);
      async_ranges_.erase(found);
      break;
    }
    case RecordKind::kThreadName: {
      const auto thread_id = in.get<std::int64_t>();
      thread_names_[thread_id] = std::string(wire::get_text(in).text);
      break;
    }
  }
}

}  // namespace tscope::profiler
