#pragma once
// The recording API for the engine and for users: scoped ranges with arguments, instants,
// counters, flows, memory events and operator spans. With no session running each call costs one
// relaxed atomic load; with one, a lock-free append to the calling thread's buffer.
//
// Names, argument keys and text argument values are "static": only their address is recorded and
// the writer thread reads the text later, so they must outlive the session (string literals,
// interned or registered strings). Pass NameStorage::kCopy for a name built on the fly.

#include <atomic>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "tscope/profiler/clock.h"
#include "tscope/trace/event_kinds.h"

namespace tscope::profiler {

namespace detail {
// The running session's generation, 0 when none runs.
extern std::atomic<std::uint32_t> active_generation;
}  // namespace detail

inline bool enabled() {
  return detail::active_generation.load(std::memory_order_relaxed) != 0;
}

enum class NameStorage : std::uint8_t { kStatic, kCopy };

// A key and value attached to a range or instant.
struct Arg {
  enum class Type : std::uint8_t { kInt, kDouble, kText };

  template <std::integral T>
  constexpr Arg(std::string_view arg_key, T value)
      : key(arg_key), type(Type::kInt), int_value(static_cast<std::int64_t>(value)) {}
  template <std::floating_point T>
  constexpr Arg(std::string_view arg_key, T value)
      : key(arg_key), type(Type::kDouble), double_value(static_cast<double>(value)) {}
  constexpr Arg(std::string_view arg_key, std::string_view static_text)
      : key(arg_key), type(Type::kText), text_value(static_text) {}

  std::string_view key;
  Type type;
  std::int64_t int_value = 0;
  double double_value = 0.0;
  std::string_view text_value;
};

// One tensor an operator read or wrote.
struct OpTensor {
  std::uint64_t id = 0;
  std::span<const std::int64_t> shape{};
};

// What an operator computed: the trace's OpInfo, as views into the caller's data.
struct OpDetail {
  std::span<const OpTensor> inputs{};   // their shapes and ids become input_shapes, tensors_read
  std::span<const OpTensor> outputs{};  // their ids become tensors_written
  std::uint64_t flops = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
};

// An allocation or free. `owner_op` is static text (empty outside any op); the writer adds the
// innermost enclosing user range of the calling thread as the event's scope.
struct MemoryEvent {
  trace::MemoryAction action = trace::MemoryAction::kAlloc;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::int32_t device = -1;  // -1: host memory
  std::string_view owner_op{};
  std::uint64_t total_allocated = 0;  // allocator totals right after the event
  std::uint64_t total_reserved = 0;
};

namespace detail {
// Each returns the generation it recorded under, or 0 when the event was dropped or no session
// runs.
std::uint32_t begin_range(std::string_view name, NameStorage storage, trace::Category category,
                          std::span<const Arg> args);
// begin_range without arguments, the common case, whose record is a few fixed stores.
std::uint32_t begin_plain_range(std::string_view name, NameStorage storage,
                                trace::Category category);
void end_range(std::uint32_t generation);
void record_instant(std::string_view name, NameStorage storage, trace::Category category,
                    std::span<const Arg> args);
void record_counter(std::string_view name, double value);
void record_flow(std::uint64_t id, trace::FlowKind kind, bool is_start);
void record_memory(const MemoryEvent& event);
void record_op(std::uint32_t generation, Ticks start_ticks, std::string_view name,
               std::uint64_t op_id, const OpDetail& detail);
// While GPU capture runs, gives the op a fresh id and pushes it onto CUPTI's external correlation
// stack of the calling thread, so the kernels it launches carry it; returns 0 otherwise.
std::uint64_t begin_op_correlation();
void end_op_correlation();
}  // namespace detail

// A range on the calling thread from construction to destruction.
class Range {
 public:
  explicit Range(std::string_view name, trace::Category category = trace::Category::kUserAnnotation,
                 std::initializer_list<Arg> args = {}, NameStorage storage = NameStorage::kStatic) {
    if (enabled()) {
      generation_ = args.size() == 0
                        ? detail::begin_plain_range(name, storage, category)
                        : detail::begin_range(name, storage, category,
                                              std::span<const Arg>(args.begin(), args.size()));
    }
  }
  ~Range() {
    if (generation_ != 0) detail::end_range(generation_);
  }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

 private:
  std::uint32_t generation_ = 0;
};

// A training step, named "step N" with category kStep: the boundary the analyzer splits runs at.
// A batch size above 0 is recorded as the "batch_size" argument, from which the analyzer sizes
// what fits in memory.
class StepRange {
 public:
  explicit StepRange(std::int64_t step, std::int64_t batch_size = 0);
  ~StepRange();
  StepRange(const StepRange&) = delete;
  StepRange& operator=(const StepRange&) = delete;

 private:
  std::uint32_t generation_ = 0;
};

// An operator's span with its detail, written as one record when finish() is called, so a full
// buffer drops the whole op and never half of it. While GPU capture runs, the kernels launched
// between construction and finish() are tied to the span by its op id.
class OpRange {
 public:
  explicit OpRange(std::string_view static_name) : name_(static_name) {
    generation_ = detail::active_generation.load(std::memory_order_relaxed);
    if (generation_ != 0) {
      start_ticks_ = now_ticks();
      op_id_ = detail::begin_op_correlation();
    }
  }
  bool recording() const { return generation_ != 0; }
  void finish(const OpDetail& detail) {
    if (generation_ != 0) detail::record_op(generation_, start_ticks_, name_, op_id_, detail);
    if (op_id_ != 0) detail::end_op_correlation();
    generation_ = 0;
    op_id_ = 0;
  }
  ~OpRange() { finish({}); }
  OpRange(const OpRange&) = delete;
  OpRange& operator=(const OpRange&) = delete;

 private:
  std::string_view name_;
  std::uint32_t generation_ = 0;
  Ticks start_ticks_ = 0;
  std::uint64_t op_id_ = 0;
};

inline void instant(std::string_view name, trace::Category category = trace::Category::kOther,
                    std::initializer_list<Arg> args = {},
                    NameStorage storage = NameStorage::kStatic) {
  if (enabled()) {
    detail::record_instant(name, storage, category,
                           std::span<const Arg>(args.begin(), args.size()));
  }
}

// A sample of the counter named `static_name` (one counter track per name).
inline void counter(std::string_view static_name, double value) {
  if (enabled()) detail::record_counter(static_name, value);
}

// The two ends of an arrow, each bound to the innermost range open on the calling thread when
// it is recorded; ends with the same id and kind are joined.
inline void flow_start(std::uint64_t id, trace::FlowKind kind = trace::FlowKind::kOther) {
  if (enabled()) detail::record_flow(id, kind, true);
}
inline void flow_end(std::uint64_t id, trace::FlowKind kind = trace::FlowKind::kOther) {
  if (enabled()) detail::record_flow(id, kind, false);
}
// A flow id that no other call in this process returns, for arrows the program draws between
// its own threads (trace::FlowKind::kHandoff: work on one thread, and another's wait for it;
// kEnqueue: a span that queued work, and the span of the thread that ran it).
std::uint64_t new_flow_id();

inline void memory_event(const MemoryEvent& event) {
  if (enabled()) detail::record_memory(event);
}

// Names the calling thread's track (copied).
void name_current_thread(std::string_view name);

}  // namespace tscope::profiler
