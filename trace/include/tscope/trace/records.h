#pragma once
// Self-contained descriptions of one process, track or event, as producers hand them to a
// TraceBuilder or a streaming TscWriter (the finalised Trace stores them as columns instead).

#include <cstdint>
#include <optional>
#include <vector>

#include "tscope/trace/event_details.h"
#include "tscope/trace/event_kinds.h"
#include "tscope/trace/event_ref.h"
#include "tscope/trace/string_table.h"

namespace tscope::trace {

// Nanoseconds in the host's CLOCK_MONOTONIC domain.
using TimeNs = std::int64_t;

struct Process {
  std::int64_t pid = 0;
  StringId name = kEmptyString;
  StringId host = kEmptyString;
  std::int32_t rank = -1;  // distributed rank, -1 when not part of a job
  std::int32_t sort_index = 0;

  bool operator==(const Process&) const = default;
};

struct TrackInfo {
  TrackKind kind = TrackKind::kHostThread;
  StringId name = kEmptyString;
  std::uint32_t process = 0;    // index into Trace::processes()
  std::int64_t thread_id = -1;  // host threads
  std::int32_t device = -1;     // GPU streams and memory pools
  std::int64_t stream = -1;     // GPU streams
  std::int32_t sort_index = 0;

  bool operator==(const TrackInfo&) const = default;
};

struct SpanRecord {
  TimeNs start = 0;
  TimeNs end = 0;
  StringId name = kEmptyString;
  Category category = Category::kOther;
  std::uint32_t correlation_id = 0;
  std::uint64_t external_correlation_id = 0;
  std::optional<KernelInfo> kernel;
  std::optional<CopyInfo> copy;
  std::optional<OpInfo> op;
  std::vector<Arg> args;

  bool operator==(const SpanRecord&) const = default;
};

// A point event: a user mark, an OOM, a profiler note.
struct InstantRecord {
  TimeNs time = 0;
  StringId name = kEmptyString;
  Category category = Category::kOther;
  std::vector<Arg> args;

  bool operator==(const InstantRecord&) const = default;
};

struct MemoryRecord {
  TimeNs time = 0;
  MemoryAction action = MemoryAction::kAlloc;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::int32_t device = -1;           // -1 for host memory
  StringId owner_op = kEmptyString;   // the operator that allocated or freed
  StringId scope = kEmptyString;      // the innermost user range around it
  std::uint64_t total_allocated = 0;  // allocator totals right after this event
  std::uint64_t total_reserved = 0;

  bool operator==(const MemoryRecord&) const = default;
};

// An arrow between two events, e.g. a runtime launch and the kernel it started.
struct Flow {
  FlowKind kind = FlowKind::kOther;
  std::uint64_t id = 0;  // the correlation id that tied the two ends
  EventRef from;
  EventRef to;

  auto operator<=>(const Flow&) const = default;
};
static_assert(sizeof(Flow) == 32);

}  // namespace tscope::trace
