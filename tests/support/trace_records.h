#pragma once
// Records for traces that tests build by hand, their strings interned in the builder that will
// hold them: a named span, a memory event with its owner and scope, a track of a process.

#include <cstdint>
#include <string_view>

#include "tscope/trace/trace_builder.h"

namespace tscope::testing {

inline trace::SpanRecord named_span(trace::TraceBuilder& builder, std::string_view name,
                                    trace::Category category, trace::TimeNs start,
                                    trace::TimeNs end) {
  trace::SpanRecord record;
  record.name = builder.intern(name);
  record.category = category;
  record.start = start;
  record.end = end;
  return record;
}

// An allocation or free made by the op `owner` inside the user range `scope` ("" for none).
inline trace::MemoryRecord memory_record(trace::TraceBuilder& builder, trace::TimeNs time,
                                         trace::MemoryAction action, std::uint64_t address,
                                         std::uint64_t bytes, std::string_view owner,
                                         std::string_view scope = "") {
  trace::MemoryRecord record;
  record.time = time;
  record.action = action;
  record.address = address;
  record.bytes = bytes;
  record.owner_op = builder.intern(owner);
  record.scope = builder.intern(scope);
  return record;
}

// A track of `process`; a GPU stream is stream 7 of device 0.
inline trace::TrackInfo track_info(trace::TraceBuilder& builder, std::uint32_t process,
                                   trace::TrackKind kind, std::string_view name) {
  trace::TrackInfo info;
  info.kind = kind;
  info.process = process;
  info.name = builder.intern(name);
  if (kind == trace::TrackKind::kGpuStream) {
    info.device = 0;
    info.stream = 7;
  }
  return info;
}

}  // namespace tscope::testing
