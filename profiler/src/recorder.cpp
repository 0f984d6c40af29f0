// The producer side of capture: each thread appends encoded records to its own ring.

#include "recorder.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>

#include "capture_gate.h"
#include "thread_buffers.h"
#include "wire_format.h"

namespace tscope::profiler {
namespace detail {

std::atomic<std::uint32_t> active_generation{0};

}  // namespace detail

namespace {

// Nesting deeper than this is dropped (and counted), so one bit per level says whether a level's
// begin was dropped and its end must be too.
constexpr std::uint32_t kMaxDepth = 64;
// Space kept free for the end of every open range: the end record and the padding it may need
// at the end of the ring. An end therefore always fits, and a range is never left half-written.
constexpr std::size_t kEndReserve = sizeof(RecordHeader) + sizeof(Ticks) + kRecordAlignment;

// The calling thread's record state. Trivially destructible, so that reading it is one load from
// the thread pointer (initial-exec TLS) with no guard for a destructor's registration; the
// buffer's owner (which retires it when the thread exits) is a separate thread_local, touched
// only when the thread registers.
struct ProducerState {
  ThreadBuffer* buffer = nullptr;
  std::uint32_t generation = 0;
  std::uint32_t depth = 0;
  std::uint64_t dropped_levels = 0;
  std::size_t reserved_for_ends = 0;
};

struct BufferOwner {
  std::shared_ptr<ThreadBuffer> buffer;
  ~BufferOwner() {
    if (buffer) buffer->retired.store(true, std::memory_order_release);
  }
};

// initial-exec: a few dozen bytes of the static TLS block, which glibc also sets aside for
// libraries loaded later (the injection library under NVTX_INJECTION64_PATH), instead of a
// __tls_get_addr call on every access from position-independent code.
[[gnu::tls_model("initial-exec")]] thread_local constinit ProducerState t_producer;
thread_local BufferOwner t_buffer_owner;

ThreadBuffer* register_calling_thread() {
  std::array<char, 64> name{};
  if (pthread_getname_np(pthread_self(), name.data(), name.size()) != 0) name[0] = '\0';
  auto buffer = std::make_shared<ThreadBuffer>(
      ThreadBufferRegistry::instance().capacity_for_new_buffers(),
      static_cast<std::int64_t>(syscall(SYS_gettid)), std::string(name.data()));
  ThreadBufferRegistry::instance().add(buffer);
  t_buffer_owner.buffer = buffer;
  return buffer.get();
}

// Resets the calling thread's state for a new session (registering its buffer on its first).
[[gnu::noinline]] void start_generation(ProducerState& state, std::uint32_t generation) {
  if (!state.buffer) state.buffer = register_calling_thread();
  state.generation = generation;
  state.depth = 0;
  state.dropped_levels = 0;
  state.reserved_for_ends = 0;
}

// The calling thread's state for session `generation`, reset when a new session began.
ProducerState& producer(std::uint32_t generation) {
  ProducerState& state = t_producer;
  if (state.generation != generation) [[unlikely]]
    start_generation(state, generation);
  return state;
}

void count_drop(ProducerState& state) {
  std::atomic<std::uint64_t>& dropped = state.buffer->dropped;
  dropped.store(dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// Sizes the record with `encode`, then appends it unless that would eat into `keep_free`.
template <typename Encode>
[[gnu::always_inline]] inline bool append(ProducerState& state, RecordKind kind, std::uint16_t aux,
                                          std::size_t keep_free, const Encode& encode) {
  wire::ByteCounter counter;
  encode(counter);
  const std::size_t size = round_up_record(sizeof(RecordHeader) + counter.size());
  EventRing& ring = state.buffer->ring;
  if (size > ring.capacity() / 4) return false;
  const EventRing::Slot slot = ring.reserve(size, keep_free);
  if (slot.bytes == nullptr) return false;
  const RecordHeader header{static_cast<std::uint32_t>(size), kind,
                            static_cast<std::uint8_t>(state.generation), aux};
  std::memcpy(slot.bytes, &header, sizeof header);
  wire::ByteWriter writer(slot.bytes + sizeof header);
  encode(writer);
  ring.commit(slot.next_head);
  return true;
}

// Appends a record that is not part of a begin/end pair, counting it when it does not fit.
template <typename Encode>
void append_single(RecordKind kind, std::uint16_t aux, const Encode& encode) {
  const std::uint32_t generation = detail::active_generation.load(std::memory_order_relaxed);
  if (generation == 0) return;
  ProducerState& state = producer(generation);
  if (!append(state, kind, aux, state.reserved_for_ends, encode)) count_drop(state);
}

// Opens a range on the calling thread: its begin record, kept only below kMaxDepth and when the
// ring holds it beside the end records of every open range (the range's own included).
template <typename Encode>
[[gnu::always_inline]] inline std::uint32_t open_range(ProducerState& state,
                                                       trace::Category category,
                                                       const Encode& encode) {
  const std::uint32_t level = state.depth++;
  const bool kept =
      level < kMaxDepth && append(state, RecordKind::kBegin, static_cast<std::uint16_t>(category),
                                  state.reserved_for_ends + kEndReserve, encode);
  if (kept) [[likely]] {
    state.reserved_for_ends += kEndReserve;
  } else {
    if (level < kMaxDepth) state.dropped_levels |= std::uint64_t{1} << level;
    count_drop(state);
  }
  return state.generation;
}

// Opens a range whose record is a name without arguments: one instance per storage, so that a
// static name's record has a size known at compile time.
[[gnu::always_inline]] inline std::uint32_t open_plain_range(ProducerState& state,
                                                             trace::Category category, Ticks ticks,
                                                             std::string_view name,
                                                             NameStorage storage) {
  if (storage == NameStorage::kStatic) {
    return open_range(state, category, [&](auto& out) {
      wire::encode_plain_named(out, ticks, name, NameStorage::kStatic);
    });
  }
  return open_range(state, category, [&](auto& out) {
    wire::encode_plain_named(out, ticks, name, NameStorage::kCopy);
  });
}

// Closes the innermost range open on the calling thread, if the running session (`running`, 0
// when none runs) opened it; returns the depth left open (-1 when it did not).
[[gnu::always_inline]] inline int close_innermost(std::uint32_t running) {
  ProducerState& state = t_producer;
  if (running == 0 || state.generation != running || state.depth == 0) return -1;
  const std::uint32_t level = --state.depth;
  if (level >= kMaxDepth) return static_cast<int>(level);
  const std::uint64_t bit = std::uint64_t{1} << level;
  if ((state.dropped_levels & bit) != 0) [[unlikely]] {
    state.dropped_levels &= ~bit;
    return static_cast<int>(level);
  }
  state.reserved_for_ends -= kEndReserve;
  const Ticks ticks = now_ticks();
  append(state, RecordKind::kEnd, 0, state.reserved_for_ends,
         [&](auto& out) { out.template put<Ticks>(ticks); });
  return static_cast<int>(level);
}

// Closes the innermost range open on the calling thread, if the session `generation` opened it
// and still runs; returns the depth left open (-1 when it was not).
int close_range(std::uint32_t generation) {
  const std::uint32_t running = detail::active_generation.load(std::memory_order_relaxed);
  return running == generation ? close_innermost(running) : -1;
}

}  // namespace

namespace detail {

std::uint32_t begin_range(std::string_view name, NameStorage storage, trace::Category category,
                          std::span<const Arg> args) {
  const std::uint32_t generation = active_generation.load(std::memory_order_relaxed);
  if (generation == 0) return 0;
  ProducerState& state = producer(generation);
  const Ticks ticks = now_ticks();
  return open_range(state, category,
                    [&](auto& out) { wire::encode_named(out, ticks, name, storage, args); });
}

std::uint32_t begin_plain_range(std::string_view name, NameStorage storage,
                                trace::Category category) {
  const std::uint32_t generation = active_generation.load(std::memory_order_relaxed);
  if (generation == 0) return 0;
  ProducerState& state = producer(generation);
  const Ticks ticks = now_ticks();
  return open_plain_range(state, category, ticks, name, storage);
}

void end_range(std::uint32_t generation) {
  close_range(generation);
}

void record_instant(std::string_view name, NameStorage storage, trace::Category category,
                    std::span<const Arg> args) {
  const Ticks ticks = now_ticks();
  append_single(RecordKind::kInstant, static_cast<std::uint16_t>(category),
                [&](auto& out) { wire::encode_named(out, ticks, name, storage, args); });
}

void record_counter(std::string_view name, double value) {
  const Ticks ticks = now_ticks();
  append_single(RecordKind::kCounter, 0, [&](auto& out) {
    out.template put<Ticks>(ticks);
    wire::put_text(out, name, NameStorage::kStatic);
    out.template put<double>(value);
  });
}

void record_flow(std::uint64_t id, trace::FlowKind kind, bool is_start) {
  append_single(RecordKind::kFlow, static_cast<std::uint16_t>(kind), [&](auto& out) {
    out.template put<std::uint64_t>(id);
    out.template put<std::uint8_t>(is_start ? 1 : 0);
  });
}

void record_memory(const MemoryEvent& event) {
  const Ticks ticks = now_ticks();
  append_single(RecordKind::kMemory, static_cast<std::uint16_t>(event.action),
                [&](auto& out) { wire::encode_memory(out, ticks, event); });
}

void record_op(std::uint32_t generation, Ticks start_ticks, std::string_view name,
               std::uint64_t op_id, const OpDetail& op_detail) {
  if (active_generation.load(std::memory_order_relaxed) != generation) return;
  const Ticks end_ticks = now_ticks();
  append_single(
      RecordKind::kOp, static_cast<std::uint16_t>(trace::Category::kCpuOp),
      [&](auto& out) { wire::encode_op(out, start_ticks, end_ticks, name, op_id, op_detail); });
}

}  // namespace detail

std::uint64_t new_flow_id() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

// The engine's steps show their names to the capture gate while a --steps window watches them.
StepRange::StepRange(std::int64_t step, std::int64_t batch_size) {
  const bool watched = detail::gate_watches_opens.load(std::memory_order_relaxed);
  if (!enabled() && !watched) return;
  std::array<char, 32> name{};
  const int length =
      std::snprintf(name.data(), name.size(), "step %lld", static_cast<long long>(step));
  const std::string_view text(name.data(), static_cast<std::size_t>(length));
  const bool ends_window = watched && CaptureGate::instance().before_open(text);
  const Arg batch_size_arg("batch_size", batch_size);
  const internal::Pushed pushed =
      internal::push_range(text, NameStorage::kCopy, trace::Category::kStep,
                           std::span<const Arg>(&batch_size_arg, batch_size > 0 ? 1 : 0));
  generation_ = pushed.generation;
  if (ends_window) CaptureGate::instance().after_open(pushed.level);
}

StepRange::~StepRange() {
  if (generation_ == 0) return;
  const int depth = close_range(generation_);
  if (detail::gate_watches_closes.load(std::memory_order_relaxed))
    CaptureGate::instance().after_close(depth);
}

void name_current_thread(std::string_view name) {
  internal::name_thread(static_cast<std::int64_t>(syscall(SYS_gettid)), name);
}

namespace internal {

void begin_async_range(std::uint64_t id, std::string_view name, NameStorage storage,
                       trace::Category category, std::span<const Arg> args) {
  const Ticks ticks = now_ticks();
  append_single(RecordKind::kAsyncBegin, static_cast<std::uint16_t>(category),
                [&](auto& out) { wire::encode_async_begin(out, ticks, id, name, storage, args); });
}

void end_async_range(std::uint64_t id) {
  const Ticks ticks = now_ticks();
  append_single(RecordKind::kAsyncEnd, 0, [&](auto& out) {
    out.template put<Ticks>(ticks);
    out.template put<std::uint64_t>(id);
  });
}

Pushed push_range(std::string_view name, NameStorage storage, trace::Category category,
                  std::span<const Arg> args) {
  const std::uint32_t generation = detail::active_generation.load(std::memory_order_relaxed);
  if (generation == 0) return {};
  ProducerState& state = producer(generation);
  const auto level = static_cast<int>(state.depth);
  const Ticks ticks = now_ticks();
  if (args.empty()) {
    open_plain_range(state, category, ticks, name, storage);
  } else {
    open_range(state, category,
               [&](auto& out) { wire::encode_named(out, ticks, name, storage, args); });
  }
  return {level, generation};
}

int pop_range() {
  return close_innermost(detail::active_generation.load(std::memory_order_relaxed));
}

void name_thread(std::int64_t thread_id, std::string_view name) {
  append_single(RecordKind::kThreadName, 0, [&](auto& out) {
    out.template put<std::int64_t>(thread_id);
    wire::put_text(out, name, NameStorage::kCopy);
  });
}

}  // namespace internal
}  // namespace tscope::profiler
