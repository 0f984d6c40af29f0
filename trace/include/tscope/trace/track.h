#pragma once
// One timeline row of a trace (a host thread, GPU stream, counter or memory pool) with its events
// stored as columns sorted by time. Span columns are what a timeline draws per frame, so they
// hold only hot fields (18 bytes per span, the per-depth index included, on a track whose spans
// start within 4.29 s of each other and last less each, of a trace with fewer than 65,535 names
// and span details; 31 at most); detail that many spans
// share lives in the Trace's side tables, and what is unique to a span in columns that only the
// tracks holding it fill.

#include <cstdint>
#include <span>
#include <vector>

#include "tscope/trace/event_details.h"
#include "tscope/trace/records.h"
#include "tscope/trace/time_column.h"
#include "tscope/trace/widening_column.h"

namespace tscope::trace {

// Spans sorted by start time (ties: the longer, enclosing span first).
struct SpanColumns {
  TimeColumn start;  // 32-bit offsets while the track's spans start within 4.29 s of each other
  // end - start: 32 bits a span while every span of the track is shorter than 4.29 s.
  WideningColumn duration;
  IndexColumn name;    // StringIds
  IndexColumn detail;  // into Trace::span_details(), kNoIndex when none
  std::vector<Category> category;
  DepthColumn depth;  // nesting level computed by finalize, 0 = outermost
  // What is unique to each span, one entry per span on a track where some span has it and empty
  // on the others: CUPTI correlation (runtime launch <-> GPU activity) on CUDA API and GPU rows,
  // external correlation (engine op id <-> GPU activity), and an engine op's tensor ids. Read
  // through the accessors below, which give 0 or an empty run where a column is empty.
  std::vector<std::uint32_t> correlation;
  WideningColumn external_correlation;
  std::vector<TensorRun> tensors;  // into Trace::tensor_ids()

  std::size_t size() const { return start.size(); }
  // In unsigned arithmetic: a duration may exceed INT64_MAX (a span from far below zero to far
  // above it), and the sum wraps back to the end it was taken from.
  TimeNs end(std::size_t span) const {
    return static_cast<TimeNs>(static_cast<std::uint64_t>(start[span]) + duration[span]);
  }
  std::uint32_t correlation_id(std::size_t span) const {
    return correlation.empty() ? 0 : correlation[span];
  }
  std::uint64_t external_correlation_id(std::size_t span) const {
    return external_correlation.empty() ? 0 : external_correlation[span];
  }
  TensorRun tensor_run(std::size_t span) const {
    return tensors.empty() ? TensorRun{} : tensors[span];
  }
  bool operator==(const SpanColumns&) const = default;
};

struct InstantColumns {
  TimeColumn time;
  std::vector<StringId> name;
  std::vector<Category> category;
  std::vector<ArgRange> args;  // into Trace::args()

  std::size_t size() const { return time.size(); }
  bool operator==(const InstantColumns&) const = default;
};

struct CounterColumns {
  TimeColumn time;
  std::vector<double> value;

  std::size_t size() const { return time.size(); }
  bool operator==(const CounterColumns&) const = default;
};

// Memory events: the fields that change from event to event in columns, the rest (action, device,
// owner op, scope, reserve) as an index into the track's distinct contexts, of which a run holds a
// few hundred at most.
struct MemoryColumns {
  TimeColumn time;
  std::vector<std::uint64_t> address;
  WideningColumn bytes;
  WideningColumn total_allocated;      // the allocator's total right after each event
  std::vector<std::uint32_t> context;  // into contexts
  std::vector<MemoryContext> contexts;

  std::size_t size() const { return time.size(); }
  MemoryAction action(std::size_t event) const { return contexts[context[event]].action; }
  std::int32_t device(std::size_t event) const { return contexts[context[event]].device; }
  StringId owner_op(std::size_t event) const { return contexts[context[event]].owner_op; }
  StringId scope(std::size_t event) const { return contexts[context[event]].scope; }
  std::uint64_t total_reserved(std::size_t event) const {
    return contexts[context[event]].total_reserved;
  }
  MemoryRecord record(std::size_t index) const;
  bool operator==(const MemoryColumns&) const = default;
};

// The indices of a track's spans at one depth, in time order: a view into the track's per-depth
// index, valid while that track is and not across a move of it (a std::span into a vector's
// buffer survived one; every reader takes a view inside a loop over a finished trace).
class SpanIndices {
 public:
  using Iterator = IndexColumn::Iterator;

  SpanIndices() = default;
  SpanIndices(const IndexColumn* column, std::size_t begin, std::size_t size)
      : column_(column), begin_(begin), size_(size) {}

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint32_t operator[](std::size_t index) const { return (*column_)[begin_ + index]; }
  std::uint32_t front() const { return (*this)[0]; }
  std::uint32_t back() const { return (*this)[size_ - 1]; }
  Iterator begin() const { return {column_, begin_}; }
  Iterator end() const { return {column_, begin_ + size_}; }

 private:
  const IndexColumn* column_ = nullptr;
  std::size_t begin_ = 0;
  std::size_t size_ = 0;
};

class Track {
 public:
  Track() = default;
  explicit Track(const TrackInfo& info) : info_(info) {}

  const TrackInfo& info() const { return info_; }
  const SpanColumns& spans() const { return spans_; }
  const InstantColumns& instants() const { return instants_; }
  const CounterColumns& counters() const { return counters_; }
  const MemoryColumns& memory() const { return memory_; }

  // Levels present among the spans: max depth + 1, 0 when the track has no spans.
  std::size_t depth_count() const { return depth_begin_.empty() ? 0 : depth_begin_.size() - 1; }
  // Indices of the spans at `depth`, in time order. Spans at one depth never overlap, so their
  // ends are sorted too and can be binary searched.
  SpanIndices spans_at_depth(std::size_t depth) const;
  // Bytes the per-depth index holds (one span index each, 16 bits while the track holds fewer
  // than 65,535 spans, and one boundary per depth).
  std::uint64_t depth_index_bytes() const;
  // Index (into spans_at_depth(depth)) of the first span at `depth` that ends after `time`;
  // equals its size when none does. With a later start bound this gives a visible window.
  std::size_t first_span_ending_after(std::size_t depth, TimeNs time) const;
  // Index of the first span starting at or after `time`.
  std::size_t first_span_starting_at(TimeNs time) const;
  // Index of the deepest span containing `time` (start <= time < end), or kNoIndex.
  std::uint32_t innermost_span_at(TimeNs time) const;

  bool operator==(const Track&) const = default;

 private:
  friend class TraceBuilder;

  TrackInfo info_;
  SpanColumns spans_;
  InstantColumns instants_;
  CounterColumns counters_;
  MemoryColumns memory_;
  // Span indices grouped by depth; depth d occupies [depth_begin_[d], depth_begin_[d + 1]).
  IndexColumn spans_by_depth_;
  std::vector<std::uint32_t> depth_begin_;
};

}  // namespace tscope::trace
