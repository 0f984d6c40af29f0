#pragma once
// Where the benchmarks find the large Kineto trace that bench/trace/large_kineto_trace.cpp writes
// (never committed): $TSCOPE_LARGE_TRACE, or /tmp/tscope_large_kineto.json.

#include <cstdlib>
#include <filesystem>

namespace tscope::bench {

inline std::filesystem::path large_kineto_trace_path() {
  const char* path = std::getenv("TSCOPE_LARGE_TRACE");
  return path != nullptr ? path : "/tmp/tscope_large_kineto.json";
}

}  // namespace tscope::bench
