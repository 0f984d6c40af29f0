#include "tscope/trace/trace_cut.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tscope/trace/trace_builder.h"

namespace tscope::trace {
namespace {

bool overlaps(const CaptureWindow& window, TimeNs start, TimeNs end) {
  if (window.begin == window.end) return start <= window.begin && end >= window.begin;
  // A zero-length span at the window's start counts as inside it.
  return start < window.end && (end > window.begin || (start == end && start == window.begin));
}

class TraceCutter {
 public:
  TraceCutter(const Trace& trace, const CaptureWindow& window) : trace_(trace), window_(window) {}

  Trace cut() {
    // Interned in the same order, every string keeps its id, so records copy over unchanged.
    for (StringId id = 1; id < trace_.strings().size(); ++id)
      builder_.intern(trace_.string(id));
    for (const Process& process : trace_.processes())
      builder_.add_process(process);
    for (const Track& track : trace_.tracks())
      builder_.add_track(track.info());
    kept_spans_.resize(trace_.tracks().size());
    kept_instants_.resize(trace_.tracks().size());
    for (std::uint32_t track = 0; track < trace_.tracks().size(); ++track) {
      cut_spans(track);
      cut_instants(track);
      cut_counters(track);
      cut_memory(track);
    }
    for (const Flow& flow : trace_.flows()) {
      const std::optional<EventRef> from = kept(flow.from);
      const std::optional<EventRef> to = kept(flow.to);
      if (from && to) builder_.add_flow({flow.kind, flow.id, *from, *to});
    }
    TraceMetadata& metadata = builder_.metadata();
    metadata = trace_.metadata();
    set_capture_window(metadata, window_);
    // The original's flows are all there is: relinking by correlation id would add none.
    return builder_.finalize({.link_correlated_events = false});
  }

 private:
  void cut_spans(std::uint32_t track) {
    const SpanColumns& spans = trace_.track(track).spans();
    std::vector<std::uint32_t>& kept = kept_spans_[track];
    kept.assign(spans.size(), kNoIndex);
    for (std::uint32_t span = 0; span < spans.size(); ++span) {
      if (!overlaps(window_, spans.start[span], spans.end(span))) continue;
      kept[span] = builder_.add_span(track, trace_.span_record(track, span)).index;
    }
  }

  void cut_instants(std::uint32_t track) {
    const InstantColumns& instants = trace_.track(track).instants();
    std::vector<std::uint32_t>& kept = kept_instants_[track];
    kept.assign(instants.size(), kNoIndex);
    for (std::uint32_t instant = 0; instant < instants.size(); ++instant) {
      if (!inside(instants.time[instant])) continue;
      kept[instant] = builder_.add_instant(track, trace_.instant_record(track, instant)).index;
    }
  }

  void cut_counters(std::uint32_t track) {
    const CounterColumns& counters = trace_.track(track).counters();
    std::optional<double> value_at_begin;
    for (std::size_t sample = 0; sample < counters.size(); ++sample) {
      const TimeNs time = counters.time[sample];
      if (time < window_.begin) {
        value_at_begin = counters.value[sample];
        continue;
      }
      if (value_at_begin && time > window_.begin) {
        builder_.add_counter_sample(track, window_.begin, *value_at_begin);
      }
      value_at_begin.reset();
      if (time >= window_.end) break;
      builder_.add_counter_sample(track, time, counters.value[sample]);
    }
    if (value_at_begin) builder_.add_counter_sample(track, window_.begin, *value_at_begin);
  }

  void cut_memory(std::uint32_t track) {
    const MemoryColumns& memory = trace_.track(track).memory();
    // Allocations live at the window's start, by (device, address), and the last event before.
    std::map<std::pair<std::int32_t, std::uint64_t>, std::size_t> live;
    std::optional<std::size_t> last_before;
    std::size_t event = 0;
    for (; event < memory.size() && memory.time[event] < window_.begin; ++event) {
      last_before = event;
      const auto key = std::make_pair(memory.device(event), memory.address[event]);
      if (memory.action(event) == MemoryAction::kAlloc) {
        live[key] = event;
      } else {
        live.erase(key);
      }
    }
    if (last_before) {
      for (const auto& [key, allocation] : live) {
        MemoryRecord state = memory.record(allocation);
        state.time = window_.begin;
        state.total_allocated = memory.total_allocated[*last_before];
        state.total_reserved = memory.total_reserved(*last_before);
        builder_.add_memory_event(track, state);
      }
    }
    for (; event < memory.size() && memory.time[event] < window_.end; ++event)
      builder_.add_memory_event(track, memory.record(event));
  }

  bool inside(TimeNs time) const {
    return time >= window_.begin && (time < window_.end || time == window_.begin);
  }

  std::optional<EventRef> kept(const EventRef& ref) const {
    const std::vector<std::vector<std::uint32_t>>* table = nullptr;
    if (ref.kind == EventKind::kSpan) table = &kept_spans_;
    if (ref.kind == EventKind::kInstant) table = &kept_instants_;
    // Flows from counter samples or memory events have no form in our writers; they are dropped.
    if (table == nullptr || ref.track >= table->size()) return std::nullopt;
    const std::vector<std::uint32_t>& indices = (*table)[ref.track];
    if (ref.index >= indices.size() || indices[ref.index] == kNoIndex) return std::nullopt;
    return EventRef{ref.kind, ref.track, indices[ref.index]};
  }

  const Trace& trace_;
  CaptureWindow window_;
  TraceBuilder builder_;
  // Per track, each original event's index among the builder's events, kNoIndex when cut.
  std::vector<std::vector<std::uint32_t>> kept_spans_;
  std::vector<std::vector<std::uint32_t>> kept_instants_;
};

}  // namespace

Trace cut_trace(const Trace& trace, const CaptureWindow& window) {
  return TraceCutter(trace, window).cut();
}

}  // namespace tscope::trace
