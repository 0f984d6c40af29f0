#pragma once
// Stores a trace's argument lists (for TraceBuilder) so that each distinct argument and each
// distinct list is held once: most repeat (Kineto's "Trace name" and "Device", a call stack shared
// by every call from one line), the spans and instants that carry the same list share its range of
// the list table, and lists that differ in one value (a sequence number) share the others.

#include <cstdint>
#include <span>
#include <vector>

#include "tscope/trace/event_details.h"
#include "tscope/trace/hashed_values.h"

namespace tscope::trace {

class ArgRuns {
 public:
  // The range of `lists` whose indices into `values` spell `run`, appending the arguments and the
  // list that are not stored yet. Every call must pass the same two tables.
  ArgRange store(std::vector<Arg>& values, std::vector<std::uint32_t>& lists,
                 std::span<const Arg> run);

 private:
  HashedValues<std::uint32_t> distinct_args_;
  HashedValues<std::uint32_t> distinct_lists_;
  std::vector<ArgRange> runs_;
  std::vector<std::uint32_t> indices_;  // of the run being stored
};

}  // namespace tscope::trace
