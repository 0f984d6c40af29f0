#pragma once
// Search by name: the spans whose name contains a query, in time order, for the viewer's
// next/previous buttons.

#include <cstddef>
#include <string_view>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::gui {

class SpanSearch {
 public:
  // Case-sensitive substring match; names are compared once each through the string table, then
  // spans by name id.
  SpanSearch(const trace::Trace& trace, std::string_view query);

  const std::vector<trace::EventRef>& matches() const { return matches_; }
  // Index of the first match starting at or after `time`, wrapping to 0 past the last.
  std::size_t first_at_or_after(trace::TimeNs time) const;

 private:
  std::vector<trace::EventRef> matches_;
  std::vector<trace::TimeNs> starts_;
};

}  // namespace tscope::gui
