#pragma once
// Where the pixel columns of a plot split a time range, for the memory and segment series: in
// double, since a range can span nearly 2^63 ns, and the last column ending exactly at the range's
// end (its double product would round past INT64_MAX).

#include <cstddef>

#include "tscope/gui/time_view.h"

namespace tscope::gui {

// The end of column `column` of `columns` equal columns over `range`.
inline TimeNs column_end(TimeRange range, std::size_t column, std::size_t columns) {
  if (column + 1 >= columns) return range.end;
  const double width = static_cast<double>(range.length()) / static_cast<double>(columns);
  return range.begin + static_cast<TimeNs>(width * static_cast<double>(column + 1));
}

}  // namespace tscope::gui
