#pragma once
// Reads the JSON that Google Benchmark writes (--benchmark_format=json or --benchmark_out),
// from current releases back to outputs without run_type, run_name or family_index.

#include <filesystem>
#include <string_view>

#include "tscope/regress/benchmark_results.h"

namespace tscope::regress {

// Throws RegressInputError naming the file when it is missing, not JSON, or not shaped like
// Google Benchmark output (no "benchmarks" array, an entry without a name, an unknown time unit).
BenchmarkResults read_gbench_json(const std::filesystem::path& path);

// The same, for text already in memory; `source` names it in errors.
BenchmarkResults parse_gbench_json(std::string_view json, const std::filesystem::path& source);

}  // namespace tscope::regress
