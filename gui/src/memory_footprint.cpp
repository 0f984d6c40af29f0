#include "tscope/gui/memory_footprint.h"

#include <string>
#include <string_view>

namespace tscope::gui {

namespace {

template <typename T>
std::uint64_t capacity_bytes(const std::vector<T>& values) {
  return values.capacity() * sizeof(T);
}

std::uint64_t span_bytes(const trace::Track& track) {
  const trace::SpanColumns& spans = track.spans();
  std::uint64_t bytes = spans.start.capacity_bytes() + spans.duration.capacity_bytes() +
                        spans.name.capacity_bytes() + spans.detail.capacity_bytes() +
                        capacity_bytes(spans.category) + spans.depth.capacity_bytes() +
                        capacity_bytes(spans.correlation) +
                        spans.external_correlation.capacity_bytes() + capacity_bytes(spans.tensors);
  return bytes + track.depth_index_bytes();
}

std::uint64_t track_bytes(const trace::Track& track) {
  const trace::InstantColumns& instants = track.instants();
  const trace::CounterColumns& counters = track.counters();
  const trace::MemoryColumns& memory = track.memory();
  return sizeof(trace::Track) + span_bytes(track) + instants.time.capacity_bytes() +
         capacity_bytes(instants.name) + capacity_bytes(instants.category) +
         capacity_bytes(instants.args) + counters.time.capacity_bytes() +
         capacity_bytes(counters.value) + memory.time.capacity_bytes() +
         capacity_bytes(memory.address) + memory.bytes.capacity_bytes() +
         memory.total_allocated.capacity_bytes() + capacity_bytes(memory.context) +
         capacity_bytes(memory.contexts);
}

std::uint64_t string_bytes(const trace::StringTable& strings) {
  // libstdc++: a hash node holds the next pointer, key, value and cached hash.
  constexpr std::uint64_t kHashNode =
      sizeof(void*) + sizeof(std::string_view) + 2 * sizeof(std::size_t);
  constexpr std::size_t kSmallString = 15;
  std::uint64_t bytes = 0;
  for (trace::StringId id = 0; id < strings.size(); ++id) {
    const std::size_t length = strings.view(id).size();
    bytes +=
        sizeof(std::string) + kHashNode + sizeof(void*) + (length > kSmallString ? length + 1 : 0);
  }
  return bytes;
}

}  // namespace

MemoryFootprint memory_footprint(const trace::Trace& trace, const LaneLayout& layout) {
  MemoryFootprint footprint;
  footprint.trace_bytes = sizeof(trace::Trace) + string_bytes(trace.strings()) +
                          capacity_bytes(trace.processes()) + trace.flows().capacity_bytes() +
                          capacity_bytes(trace.span_details()) + capacity_bytes(trace.kernels()) +
                          capacity_bytes(trace.copies()) + capacity_bytes(trace.op_details()) +
                          trace.shapes().capacity_bytes() + capacity_bytes(trace.tensor_ids()) +
                          capacity_bytes(trace.args()) + capacity_bytes(trace.arg_lists());
  for (const trace::Track& track : trace.tracks()) {
    footprint.trace_bytes += track_bytes(track);
    footprint.events += track.spans().size() + track.instants().size() + track.counters().size() +
                        track.memory().size();
  }
  footprint.viewer_bytes = sizeof(LaneLayout) + capacity_bytes(layout.lanes());
  for (const Lane& lane : layout.lanes()) {
    footprint.viewer_bytes += lane.label.capacity() > 15 ? lane.label.capacity() + 1 : 0;
    footprint.viewer_bytes += lane.replayed_allocated.capacity_bytes();
  }
  // lane_by_track_: one index per track.
  footprint.viewer_bytes += trace.tracks().size() * sizeof(std::uint32_t);
  return footprint;
}

}  // namespace tscope::gui
