// Google Benchmark JSON through simdjson's DOM parser. Every field is optional except the
// entry's name, because the format has grown over the years (run_type in 1.4, run_name and
// repetition_index in 1.5, family_index in 1.6, aggregate_unit in 1.7).

#include "tscope/regress/gbench_json_reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "tscope/regress/error.h"

namespace tscope::regress {
namespace {

struct TimeUnit {
  std::string_view name;
  double nanoseconds;
};
constexpr std::array<TimeUnit, 4> kTimeUnits{{{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};

// Fields that describe an entry rather than measure it; every other number is a counter.
constexpr std::array<std::string_view, 14> kDescriptiveFields{
    "iterations",       "real_time",        "cpu_time",     "repetitions",
    "repetition_index", "threads",          "family_index", "per_family_instance_index",
    "cpu_coefficient",  "real_coefficient", "rms",          "complexity_n",
    "time_unit",        "error_occurred"};

// Aggregates written before run_type existed are recognisable only by their name suffix.
constexpr std::array<std::string_view, 4> kLegacyAggregateSuffixes{"_mean", "_median", "_stddev",
                                                                   "_cv"};

[[noreturn]] void fail_entry(const std::filesystem::path& source, std::size_t index,
                             std::string_view what) {
  throw RegressInputError(fmt::format("{}: benchmarks[{}]: {}", source.string(), index, what));
}

std::optional<std::string_view> optional_string(simdjson::dom::object entry, std::string_view key) {
  std::string_view value;
  if (entry[key].get_string().get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

double time_unit_scale(const std::filesystem::path& source, std::size_t index,
                       simdjson::dom::object entry) {
  const std::string_view unit = optional_string(entry, "time_unit").value_or("ns");
  for (const TimeUnit& known : kTimeUnits) {
    if (known.name == unit) return known.nanoseconds;
  }
  fail_entry(source, index,
             fmt::format("unknown time_unit \"{}\" (expected ns, us, ms or s)", unit));
}

void classify_run(simdjson::dom::object entry, BenchmarkRun& run) {
  const std::optional<std::string_view> run_type = optional_string(entry, "run_type");
  const std::optional<std::string_view> run_name = optional_string(entry, "run_name");
  run.run_name = std::string(run_name.value_or(run.name));
  if (run_type) {
    run.run_type = *run_type == "aggregate" ? RunType::kAggregate : RunType::kIteration;
    run.aggregate_name = std::string(optional_string(entry, "aggregate_name").value_or(""));
    return;
  }
  for (const std::string_view suffix : kLegacyAggregateSuffixes) {
    if (run.name.size() > suffix.size() && std::string_view(run.name).ends_with(suffix)) {
      run.run_type = RunType::kAggregate;
      run.aggregate_name = std::string(suffix.substr(1));
      if (!run_name) run.run_name = run.name.substr(0, run.name.size() - suffix.size());
      return;
    }
  }
}

BenchmarkRun read_run(const std::filesystem::path& source, std::size_t index,
                      simdjson::dom::element element) {
  simdjson::dom::object entry;
  if (element.get_object().get(entry) != simdjson::SUCCESS)
    fail_entry(source, index, "is not an object");
  BenchmarkRun run;
  const std::optional<std::string_view> name = optional_string(entry, "name");
  if (!name) fail_entry(source, index, "has no \"name\" string");
  run.name = std::string(*name);
  classify_run(entry, run);

  bool error_occurred = false;
  if (entry["error_occurred"].get_bool().get(error_occurred) != simdjson::SUCCESS)
    error_occurred = false;
  // cv aggregates hold a fraction in the time fields, not a time.
  const bool is_fraction =
      optional_string(entry, "aggregate_unit").value_or("time") == "percentage";
  double real_time = 0.0;
  double cpu_time = 0.0;
  const bool has_real = entry["real_time"].get_double().get(real_time) == simdjson::SUCCESS;
  const bool has_cpu = entry["cpu_time"].get_double().get(cpu_time) == simdjson::SUCCESS;
  if (has_real && has_cpu && !error_occurred && !is_fraction) {
    const double scale = time_unit_scale(source, index, entry);
    run.has_times = true;
    run.real_time_ns = real_time * scale;
    run.cpu_time_ns = cpu_time * scale;
  }

  for (const auto field : entry) {
    double value = 0.0;
    if (field.value.get_double().get(value) != simdjson::SUCCESS) continue;
    if (std::find(kDescriptiveFields.begin(), kDescriptiveFields.end(), field.key) !=
        kDescriptiveFields.end()) {
      continue;
    }
    if (!error_occurred) run.counters.emplace(std::string(field.key), value);
  }
  return run;
}

// Google Benchmark writes a counter that is not finite (the cv of a counter that is always 0) as
// the bare word NaN, Infinity or -Infinity, which JSON does not allow; outside strings they become
// null, which the reader skips like any value that is not a number.
std::string without_non_finite_numbers(std::string_view json) {
  static constexpr std::array<std::string_view, 4> kWords{"-Infinity", "Infinity", "-NaN", "NaN"};
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < json.size())
        out += json[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    const auto word = std::find_if(kWords.begin(), kWords.end(), [&](std::string_view w) {
      return json.substr(i).starts_with(w);
    });
    if (word == kWords.end()) {
      out += c;
      continue;
    }
    out += "null";
    i += word->size() - 1;
  }
  return out;
}

}  // namespace

BenchmarkResults parse_gbench_json(std::string_view json, const std::filesystem::path& source) {
  simdjson::dom::parser parser;
  simdjson::dom::element document;
  const simdjson::padded_string padded(without_non_finite_numbers(json));
  if (const auto error = parser.parse(padded).get(document); error != simdjson::SUCCESS) {
    throw RegressInputError(
        fmt::format("{}: not valid JSON: {}", source.string(), simdjson::error_message(error)));
  }
  simdjson::dom::array benchmarks;
  if (document["benchmarks"].get_array().get(benchmarks) != simdjson::SUCCESS) {
    throw RegressInputError(fmt::format(
        "{}: no \"benchmarks\" array (is this Google Benchmark JSON output?)", source.string()));
  }
  BenchmarkResults results;
  results.source = source;
  std::size_t index = 0;
  for (const simdjson::dom::element element : benchmarks) {
    results.runs.push_back(read_run(source, index, element));
    ++index;
  }
  return results;
}

BenchmarkResults read_gbench_json(const std::filesystem::path& path) {
  std::ifstream input(path, std::ios::binary);
  if (!input)
    throw RegressInputError(
        fmt::format("{}: cannot open benchmark results: {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << input.rdbuf();
  if (input.bad()) throw RegressInputError(fmt::format("{}: read failed", path.string()));
  return parse_gbench_json(text.str(), path);
}

}  // namespace tscope::regress
