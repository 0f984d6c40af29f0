#pragma once
// The selection details panel's rows: every field of a span or instant (times, category,
// correlation ids, launch geometry, copy bytes and direction, op shapes and bytes, arguments) and
// the span at the other end of each flow, e.g. the launch of a kernel.

#include <string>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::gui {

struct DetailRow {
  std::string key;
  std::string value;

  bool operator==(const DetailRow&) const = default;
};

// Times are shown relative to `origin`. `flows` are the selection's flows (see selection_flows).
std::vector<DetailRow> describe_event(const trace::Trace& trace, trace::EventRef event,
                                      trace::TimeNs origin, const std::vector<trace::Flow>& flows);

}  // namespace tscope::gui
