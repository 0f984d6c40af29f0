#pragma once
// Kind-specific detail of spans (kernel launch geometry, copy direction and memory kinds, operator
// shapes and dataflow, free-form arguments). Kept in side tables of the Trace, each distinct value
// once, so the hot per-span columns stay small.

#include <array>
#include <cstdint>
#include <limits>
#include <variant>
#include <vector>

#include "tscope/trace/event_kinds.h"
#include "tscope/trace/string_table.h"

namespace tscope::trace {

// Marks an absent entry in a side-table index column.
inline constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();

struct KernelInfo {
  std::array<std::uint32_t, 3> grid{};
  std::array<std::uint32_t, 3> block{};
  std::uint32_t registers_per_thread = 0;
  std::uint32_t static_shared_bytes = 0;
  std::uint32_t dynamic_shared_bytes = 0;
  std::int32_t device = -1;
  std::int64_t stream = -1;

  bool operator==(const KernelInfo&) const = default;
};

struct CopyInfo {
  std::uint64_t bytes = 0;
  CopyDirection direction = CopyDirection::kUnknown;
  MemoryKind source = MemoryKind::kUnknown;
  MemoryKind destination = MemoryKind::kUnknown;

  bool operator==(const CopyInfo&) const = default;
};

// What an engine operator computed and which tensors it read and wrote: the dataflow that fusion
// analysis follows. This is the self-contained form producers hand over; a Trace stores the
// shapes and counts once per distinct value (OpDetail) and the tensor ids per span (TensorRun).
struct OpInfo {
  std::vector<std::vector<std::int64_t>> input_shapes;
  std::uint64_t flops = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::vector<std::uint64_t> tensors_read;
  std::vector<std::uint64_t> tensors_written;

  bool operator==(const OpInfo&) const = default;
};

// The part of an operator's detail that repeats from step to step, stored once per distinct value
// in Trace::op_details(): its input shapes (a list of Trace::shapes()) and the work it did.
struct OpDetail {
  std::uint32_t input_shapes = 0;
  std::uint64_t flops = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;

  bool operator==(const OpDetail&) const = default;
};

// The tensor ids of one operator span, a run of Trace::tensor_ids(): first those it read, then
// those it wrote.
struct TensorRun {
  static constexpr std::uint32_t kMaxTensors = 0xffff;

  std::uint32_t begin = 0;
  std::uint16_t read = 0;
  std::uint16_t written = 0;

  bool operator==(const TensorRun&) const = default;
};

// A string argument value, distinct from integers so an ArgValue is never ambiguous.
struct StringArg {
  StringId id = kEmptyString;
  bool operator==(const StringArg&) const = default;
};
using ArgValue = std::variant<std::int64_t, double, StringArg>;

struct Arg {
  StringId key = kEmptyString;
  ArgValue value;

  bool operator==(const Arg&) const = default;
};

// A run of entries in Trace::arg_lists(), each an index into Trace::args().
struct ArgRange {
  std::uint32_t begin = 0;
  std::uint32_t count = 0;

  bool operator==(const ArgRange&) const = default;
};

// The kind-specific detail of a span that many spans share (launch geometry, copy kinds, operator
// work, argument lists), stored once per distinct value in Trace::span_details(). What is unique
// to one span (correlation ids, tensor ids) lives in columns of its track instead.
struct SpanDetail {
  // Into Trace::kernels(), copies() and op_details(), kNoIndex when the span has none.
  std::uint32_t kernel = kNoIndex;
  std::uint32_t copy = kNoIndex;
  std::uint32_t op = kNoIndex;
  ArgRange args;

  bool operator==(const SpanDetail&) const = default;
};
static_assert(sizeof(SpanDetail) == 20);

// What a memory event shares with many others (what it did, on which device, for which op and
// scope, the allocator's reserve after it), stored once per distinct value per track.
struct MemoryContext {
  MemoryAction action = MemoryAction::kAlloc;
  std::int32_t device = -1;
  StringId owner_op = kEmptyString;
  StringId scope = kEmptyString;
  std::uint64_t total_reserved = 0;

  bool operator==(const MemoryContext&) const = default;
};

}  // namespace tscope::trace
