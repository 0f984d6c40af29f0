#pragma once
// The flow events (s, t, f) of a Chrome trace: each end is kept until the last window, when
// every span of its row is known, then bound to its span (ChromeFlowBinder) and paired with the
// other end of the same kind and id into one of the model's flows.

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "chrome_flow_binder.h"
#include "chrome_track_map.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace::chrome_json {

struct FlowEnd {
  FlowKind kind = FlowKind::kOther;
  std::uint64_t id = 0;
  // What tied the ends, when the writer says ("correlation" in our export's flow args): our
  // arrows each have their own id, while a launch that feeds several kernels has one correlation.
  std::optional<std::uint64_t> correlation;
  TimeNs time = 0;
  bool is_start = true;
  // Bound to the next span of its row instead of the enclosing one.
  bool binds_to_next = false;
};

class ChromeFlows {
 public:
  // Every span of the trace, for the flow ends of its row to bind to.
  void add_span(RowId row, TimeNs start, TimeNs end, EventRef ref) {
    rows_[row_index(row)].add_span(start, end, ref);
  }
  void add_end(RowId row, const FlowEnd& end);
  // Binds the ends to spans and adds the flows they make to `builder`; frees what binding needed.
  void finish(TraceBuilder& builder);

 private:
  // Fields ordered largest first: one is kept for every flow event of the file.
  struct PendingEnd {
    std::uint64_t id = 0;
    std::uint64_t correlation = 0;
    TimeNs time = 0;
    std::uint32_t row = 0;  // in rows_
    FlowKind kind = FlowKind::kOther;
    bool is_start = true;
    bool binds_to_next = false;
    bool has_correlation = false;
  };
  static_assert(sizeof(PendingEnd) == 32);

  // An end bound to its span, as finish() sorts them.
  struct BoundEnd {
    std::uint64_t id = 0;
    std::uint64_t packed_ref = 0;
    std::uint64_t correlation = 0;
    std::uint32_t sequence = 0;
    FlowKind kind = FlowKind::kOther;
    bool is_start = true;
    bool has_correlation = false;
  };

  // The row's index in rows_, a binder made for it when new.
  std::uint32_t row_index(RowId row);
  // The ends bound to their spans, sorted by kind, id and file order.
  std::vector<BoundEnd> bind_ends();

  std::vector<ChromeFlowBinder> rows_;
  std::map<RowId, std::uint32_t> row_indices_;  // in rows_
  std::optional<std::pair<RowId, std::uint32_t>> last_row_;
  std::vector<PendingEnd> ends_;
};

}  // namespace tscope::trace::chrome_json
