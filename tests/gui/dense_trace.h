#pragma once
// Small traces built in code for the viewer's tests: one host thread of back-to-back spans of a
// known width, so folding and visibility can be checked exactly.

#include <cstdint>
#include <string>

#include "tscope/trace/trace_builder.h"

namespace tscope::gui::testing {

// `count` spans of `length` ns, `gap` ns apart, starting at `start`, on one thread, all named
// "op"; every tenth one gets a child covering its first half (depth 1).
inline trace::Trace back_to_back_spans(std::uint32_t count, trace::TimeNs length, trace::TimeNs gap,
                                       trace::TimeNs start = 1'000'000) {
  trace::TraceBuilder builder;
  const auto process =
      builder.add_process({1, builder.intern("train"), trace::kEmptyString, -1, 0});
  const auto thread = builder.add_track(
      {trace::TrackKind::kHostThread, builder.intern("main"), process, 1, -1, -1, 0});
  const trace::StringId name = builder.intern("op");
  const trace::StringId child = builder.intern("child");
  for (std::uint32_t index = 0; index < count; ++index) {
    trace::SpanRecord span;
    span.start = start + index * (length + gap);
    span.end = span.start + length;
    span.name = name;
    span.category = trace::Category::kCpuOp;
    builder.add_span(thread, span);
    if (index % 10 == 0) {
      span.end = span.start + length / 2;
      span.name = child;
      span.category = trace::Category::kKernel;
      builder.add_span(thread, span);
    }
  }
  return builder.finalize();
}

}  // namespace tscope::gui::testing
