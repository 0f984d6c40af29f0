#pragma once
// The writer thread's half of capture: decodes the records drained from every thread's ring,
// pairs range begins with their ends, resolves static names, attaches each memory event to its
// thread's innermost open range and each flow to the ranges it joins, and hands complete events
// to the streaming .tsc writer.

#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "thread_buffers.h"
#include "tscope/profiler/clock.h"
#include "tscope/trace/tsc_writer.h"
#include "wire_format.h"

namespace tscope::profiler {

class Collector {
 public:
  Collector(trace::TscWriter& sink, std::uint32_t generation, const TickClock& clock);

  // Drains every registered buffer once; forgets buffers of exited threads once drained, ending
  // their open ranges at `retired_end` (default: now).
  void drain(std::optional<trace::TimeNs> retired_end = std::nullopt);
  void add_counter_sample(std::string_view static_name, trace::TimeNs time, double value);
  // Records written under `generation` belong to this session too (capture reopened after a
  // pause, capture_gate.h).
  void accept_generation(std::uint32_t generation);
  // Capture paused at `end`: drains what the threads wrote, ending there (marked unfinished) every
  // range still open and every range whose end came after it, until capture reopens.
  void close_capture(trace::TimeNs end);
  // Ends every range still open at `end` (marked unfinished) and reports drops to the sink.
  void finish(trace::TimeNs end);

  std::uint64_t events() const { return events_; }
  // The recording process's index in the trace.
  std::uint32_t process() const { return process_; }
  std::uint64_t dropped_events() const { return dropped_reported_; }

 private:
  struct FlowEnd {
    std::uint64_t id = 0;
    trace::FlowKind kind = trace::FlowKind::kOther;
    bool is_start = false;
  };
  struct OpenRange {
    trace::TimeNs start = 0;
    trace::StringId name = trace::kEmptyString;
    trace::Category category = trace::Category::kOther;
    std::vector<trace::Arg> args;
    std::vector<FlowEnd> flows;
    std::uint64_t external_correlation_id = 0;  // an op's id while GPU capture runs
    // Begun after capture closed, by a thread that read the generation just before the close:
    // kept only for its nesting, and dropped with its end.
    bool after_close = false;
  };
  struct ThreadState {
    std::shared_ptr<ThreadBuffer> buffer;
    std::optional<std::uint32_t> track;
    std::vector<OpenRange> open;
    std::uint64_t dropped_seen = 0;
    std::uint64_t dropped_at_start = 0;  // drops counted in an earlier session
  };
  struct AsyncRange {
    OpenRange range;
    std::uint32_t track = 0;
  };
  struct FlowRefs {
    std::optional<trace::EventRef> from;
    std::optional<trace::EventRef> to;
  };

  void visit(ThreadState& thread, const RecordHeader& header, const std::byte* record);
  void report_drops(ThreadState& thread);
  std::uint32_t thread_track(ThreadState& thread);
  std::uint32_t counter_track(trace::StringId name);
  std::uint32_t memory_track(std::int32_t device);
  trace::StringId intern(const wire::Text& text);
  std::vector<trace::Arg> read_args(wire::ByteReader& in);
  OpenRange read_range(wire::ByteReader& in, trace::Category category);
  // Ends the thread's innermost range at `end`, or drops it when it began after capture closed.
  void close_range(ThreadState& thread, trace::TimeNs end, bool unfinished);
  // Whether `time` lies after the pause of capture_closed_at_. A thread that read the generation
  // before the pause can stamp its record after it (under ThreadSanitizer on a loaded machine the
  // engine's loader ranges began up to 180 ms after the window closed, in every run); what it
  // recorded then lies outside the window and is left out.
  bool after_close(trace::TimeNs time) const;
  // Ends every range still open at `end`, marked unfinished.
  void close_open_ranges(trace::TimeNs end);
  void add_span(std::uint32_t track, OpenRange range, trace::TimeNs end,
                std::optional<trace::OpInfo> op, bool unfinished);
  void bind_flow(const FlowEnd& end, trace::EventRef ref);

  trace::TscWriter& sink_;
  std::bitset<256> generations_;  // the low bytes of this session's generations
  // Where capture last paused, until it reopens: ends after it are cut there, and what begins
  // after it is left out.
  std::optional<trace::TimeNs> capture_closed_at_;
  const TickClock& clock_;
  std::uint32_t process_ = 0;
  std::map<const ThreadBuffer*, ThreadState> threads_;
  std::unordered_map<std::int64_t, std::string> thread_names_;
  std::map<std::pair<const char*, std::size_t>, trace::StringId> static_strings_;
  std::map<trace::StringId, std::uint32_t> counter_tracks_;
  std::map<std::int32_t, std::uint32_t> memory_tracks_;
  std::unordered_map<std::uint64_t, AsyncRange> async_ranges_;
  std::unordered_map<std::uint64_t, trace::TimeNs> early_async_ends_;
  std::map<std::pair<std::uint64_t, trace::FlowKind>, FlowRefs> flows_;
  std::uint64_t events_ = 0;
  std::uint64_t dropped_reported_ = 0;
};

}  // namespace tscope::profiler
