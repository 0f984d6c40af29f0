#pragma once
// Kind-specific detail of spans (kernel launch geometry, copy direction and memory kinds, operator
// shapes and dataflow, free-form arguments). Kept in side tables of the Trace because most spans
// have none, so the hot per-span columns stay small.

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
// analysis follows.
struct OpInfo {
  std::vector<std::vector<std::int64_t>> input_shapes;
  std::uint64_t flops = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::vector<std::uint64_t> tensors_read;
  std::vector<std::uint64_t> tensors_written;

  bool operator==(const OpInfo&) const = default;
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

// A run of entries in Trace::args().
struct ArgRange {
  std::uint32_t begin = 0;
  std::uint32_t count = 0;

  bool operator==(const ArgRange&) const = default;
};

// Everything about a span beyond its hot columns. Correlation ids live here rather than in a
// column because only GPU-related spans carry them.
// Fields are ordered so that the struct packs into 32 bytes with no padding.
struct SpanDetail {
  std::uint64_t external_correlation_id = 0;  // engine op id <-> GPU activity
  std::uint32_t correlation_id = 0;           // CUPTI correlation: runtime launch <-> GPU activity
  // Into Trace::kernels(), copies() and ops(), which hold each distinct record once, so spans
  // with equal detail share an index.
  std::uint32_t kernel = kNoIndex;
  std::uint32_t copy = kNoIndex;
  std::uint32_t op = kNoIndex;
  ArgRange args;

  bool operator==(const SpanDetail&) const = default;
};
static_assert(sizeof(SpanDetail) == 32);

}  // namespace tscope::trace
