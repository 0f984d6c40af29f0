#pragma once
// The out-of-memory instants of a trace (ours, or any tool's whose instant names say "out of
// memory" or "OOM") with what they carry: the request, the limit, the requesting op, and for a
// caching allocator its allocated and reserved bytes and largest free block.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::analyzer {

struct OomEvent {
  trace::EventRef ref;
  trace::TimeNs time = 0;
  std::optional<double> requested_bytes;
  std::optional<double> limit_bytes;
  std::optional<double> batch_size;
  std::optional<double> allocated_bytes;  // the allocator's own figures, when it reports them
  std::optional<double> reserved_bytes;
  std::optional<double> largest_free_block_bytes;
  std::string op;        // the outermost engine op that asked (conv2d); empty when not recorded
  std::string inner_op;  // the op whose kernel asked (im2col); empty when not recorded
};

// Every out-of-memory instant, in time order.
std::vector<OomEvent> out_of_memory_events(const trace::Trace& trace);

// The value of a numeric argument `key` among `args`, if any.
std::optional<double> numeric_arg(const trace::Trace& trace, trace::ArgRange args,
                                  std::string_view key);

// The batch_size argument of the span of step `step`, if it has one.
std::optional<double> step_batch_size(const trace::Trace& trace, const trace::EventRef& step_span);

}  // namespace tscope::analyzer
