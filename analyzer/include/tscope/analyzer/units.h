#pragma once
// Human-readable numbers for reports and explanations: durations, byte sizes and percentages
// with units and three significant digits.

#include <cstdint>
#include <string>

namespace tscope::analyzer {

std::string format_duration(double nanoseconds);  // "850 ns", "12.3 µs", "4.56 ms", "1.20 s"
std::string format_bytes(double bytes);           // "512 B", "1.50 KiB", "3.00 MiB"
std::string format_percent(double share);         // 0.123 -> "12.3%"

}  // namespace tscope::analyzer
