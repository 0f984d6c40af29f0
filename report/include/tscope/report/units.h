#pragma once
// Human-readable numbers for every report and view: durations, byte sizes and percentages with
// units and three significant digits. They sit in namespace tscope, below every layer, so that
// `analyze`, `diff`, `doctor` and the viewer name them alike and print a quantity one way.

#include <string>

namespace tscope {

// "850 ns", "12.3 µs", "4.56 ms", "1.20 s"; under a microsecond in whole nanoseconds.
std::string format_duration(double nanoseconds);
std::string format_bytes(double bytes);    // "512 B", "1.50 KiB", "3.00 MiB"
std::string format_percent(double share);  // 0.123 -> "12.3%"

}  // namespace tscope
