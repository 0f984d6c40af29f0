#pragma once
// Where producers of events write: the in-memory TraceBuilder and the streaming TscWriter both
// accept the same calls, so an importer or the profiler can target either without knowing which.

#include <cstdint>
#include <string_view>

#include "tscope/trace/event_ref.h"
#include "tscope/trace/records.h"
#include "tscope/trace/string_table.h"

namespace tscope::trace {

class TraceSink {
 public:
  virtual ~TraceSink() = default;

  virtual StringId intern(std::string_view text) = 0;
  // Return the index later records use to name the process or track.
  virtual std::uint32_t add_process(const Process& process) = 0;
  virtual std::uint32_t add_track(const TrackInfo& track) = 0;

  // Events may arrive in any order. The returned ref counts events per track and kind in arrival
  // order; it names the event for add_flow, and finalize maps it to the sorted position.
  virtual EventRef add_span(std::uint32_t track, const SpanRecord& span) = 0;
  virtual EventRef add_instant(std::uint32_t track, const InstantRecord& instant) = 0;
  virtual EventRef add_counter_sample(std::uint32_t track, TimeNs time, double value) = 0;
  virtual EventRef add_memory_event(std::uint32_t track, const MemoryRecord& event) = 0;
  // A flow between two events named by refs this sink returned.
  virtual void add_flow(const Flow& flow) = 0;

  virtual void add_dropped_events(std::uint64_t count) = 0;
  virtual void set_metadata_value(std::string_view key, std::string_view value) = 0;
};

}  // namespace tscope::trace
