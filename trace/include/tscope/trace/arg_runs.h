#pragma once
// Stores a trace's argument lists (for TraceBuilder) so that each distinct list is held once: most
// repeat (Kineto's "Trace name" and "Device", a call stack shared by every call from one line), and
// the spans and instants that carry the same list share its range of the args table.

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "tscope/trace/event_details.h"

namespace tscope::trace {

class ArgRuns {
 public:
  // The range of `args` that holds `run`, appending it when no equal list is stored yet. Every
  // call must pass the same `args` table.
  ArgRange store(std::vector<Arg>& args, std::span<const Arg> run);

 private:
  std::unordered_map<std::uint64_t, std::vector<ArgRange>> by_hash_;
};

}  // namespace tscope::trace
