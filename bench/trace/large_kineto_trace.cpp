// Writes a large Kineto trace for the import benchmarks by repeating a real one: every event but
// the M metadata is written again for each repeat with its times shifted past the previous
// repeat and its correlation, external and flow ids moved to a fresh range, so the result reads
// as one long profile of the same program. The output is never committed; it goes to /tmp.
//
//   large_kineto_trace OUT.json [TARGET_MB] [SOURCE.json[.gz]]
//
// TARGET_MB defaults to 659 (the trace size issue reports were measured on); SOURCE defaults to
// the ResNet-50 Kineto trace of ../shared.

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "tscope/trace/chrome_json_input.h"

namespace {

namespace dom = simdjson::dom;

constexpr std::string_view kDefaultSource = TSCOPE_SHARED_DATA_DIR
    "/traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";

bool is_time_key(std::string_view key) {
  return key == "ts";
}
bool is_id_arg(std::string_view key) {
  return key == "correlation" || key == "External id" || key == "external id";
}

std::int64_t integer_of(dom::element value) {
  if (value.type() == dom::element_type::INT64) return value.get_int64().value_unsafe();
  if (value.type() == dom::element_type::UINT64) {
    return static_cast<std::int64_t>(value.get_uint64().value_unsafe());
  }
  if (value.type() == dom::element_type::DOUBLE) {
    return static_cast<std::int64_t>(value.get_double().value_unsafe());
  }
  if (value.is_string()) {
    try {
      return std::stoll(std::string(value.get_string().value_unsafe()), nullptr, 0);
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

struct Shift {
  std::int64_t time = 0;
  std::int64_t ids = 0;
};

void write_key(std::string& out, std::string_view key) {
  out += '"';
  out += key;  // Kineto keys need no escaping
  out += "\":";
}

void write_shifted_number(std::string& out, dom::element value, std::int64_t offset) {
  // simdjson's is_double() holds for every number; only a written fraction makes one a double.
  if (value.type() == dom::element_type::DOUBLE) {
    char text[64];
    std::snprintf(text, sizeof text, "%.3f", value.get_double().value_unsafe() + offset);
    out += text;
  } else if (value.is_string()) {
    out += '"';
    out += std::to_string(integer_of(value) + offset);
    out += '"';
  } else {
    out += std::to_string(integer_of(value) + offset);
  }
}

void write_event(std::string& out, dom::object event, const Shift& shift) {
  out += '{';
  bool first = true;
  for (const dom::key_value_pair field : event) {
    if (!first) out += ',';
    first = false;
    write_key(out, field.key);
    if (is_time_key(field.key)) {
      write_shifted_number(out, field.value, shift.time);
    } else if (field.key == "id") {
      write_shifted_number(out, field.value, shift.ids);
    } else if (dom::object args;
               field.key == "args" && field.value.get_object().get(args) == simdjson::SUCCESS) {
      out += '{';
      bool first_arg = true;
      for (const dom::key_value_pair arg : args) {
        if (!first_arg) out += ',';
        first_arg = false;
        write_key(out, arg.key);
        if (is_id_arg(arg.key)) {
          write_shifted_number(out, arg.value, shift.ids);
        } else {
          out += simdjson::minify(arg.value);
        }
      }
      out += '}';
    } else {
      out += simdjson::minify(field.value);
    }
  }
  out += '}';
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: large_kineto_trace OUT.json [TARGET_MB] [SOURCE.json[.gz]]\n";
    return 2;
  }
  const std::filesystem::path output = argv[1];
  const double target_mb = argc > 2 ? std::stod(argv[2]) : 659.0;
  const std::filesystem::path source = argc > 3 ? argv[3] : std::string(kDefaultSource);
  const auto input = tscope::trace::ChromeJsonInput::read_file(source);
  dom::parser parser;
  dom::element root;
  if (const auto error = parser.parse(input.padded_data(), input.json().size(), false).get(root);
      error != simdjson::SUCCESS) {
    std::cerr << source << ": " << simdjson::error_message(error) << '\n';
    return 1;
  }
  dom::object top;
  dom::array events;
  if (root.get_object().get(top) != simdjson::SUCCESS ||
      top["traceEvents"].get_array().get(events) != simdjson::SUCCESS) {
    std::cerr << source << ": not a Kineto trace (no traceEvents array)\n";
    return 1;
  }

  // One repeat lasts from the first event's start to the last one's end; ids move past the
  // largest one seen.
  std::int64_t first_time = INT64_MAX;
  std::int64_t last_time = INT64_MIN;
  std::int64_t largest_id = 0;
  for (const dom::element element : events) {
    dom::object event;
    if (element.get_object().get(event) != simdjson::SUCCESS) continue;
    dom::element ts;
    if (event["ts"].get(ts) == simdjson::SUCCESS) {
      dom::element dur;
      const std::int64_t start = integer_of(ts);
      const std::int64_t duration =
          event["dur"].get(dur) == simdjson::SUCCESS ? integer_of(dur) : 0;
      first_time = std::min(first_time, start);
      last_time = std::max(last_time, start + duration);
    }
    dom::element id;
    if (event["id"].get(id) == simdjson::SUCCESS) largest_id = std::max(largest_id, integer_of(id));
    dom::object args;
    if (event["args"].get_object().get(args) == simdjson::SUCCESS) {
      for (const dom::key_value_pair arg : args) {
        if (is_id_arg(arg.key)) largest_id = std::max(largest_id, integer_of(arg.value));
      }
    }
  }
  const std::int64_t period = last_time - first_time + 1000;  // 1 ms between repeats

  std::ofstream file(output, std::ios::binary);
  if (!file) {
    std::cerr << output << ": cannot open for writing\n";
    return 1;
  }
  std::string out = "{";
  for (const dom::key_value_pair field : top) {
    if (field.key == "traceEvents") continue;
    write_key(out, field.key);
    out += simdjson::minify(field.value);
    out += ',';
  }
  out += "\"traceEvents\":[\n";
  const auto target_bytes = static_cast<std::uint64_t>(target_mb * 1e6);
  std::uint64_t written = 0;
  std::uint64_t event_count = 0;
  bool first_event = true;
  for (int repeat = 0; written + out.size() < target_bytes; ++repeat) {
    const Shift shift{repeat * period, repeat * (largest_id + 1)};
    for (const dom::element element : events) {
      dom::object event;
      if (element.get_object().get(event) != simdjson::SUCCESS) continue;
      dom::element phase;
      const bool metadata = event["ph"].get(phase) == simdjson::SUCCESS && phase.is_string() &&
                            phase.get_string().value_unsafe() == "M";
      if (metadata && repeat > 0) continue;
      if (!first_event) out += ",\n";
      first_event = false;
      write_event(out, event, shift);
      ++event_count;
      if (out.size() > (std::size_t{1} << 24)) {
        file.write(out.data(), static_cast<std::streamsize>(out.size()));
        written += out.size();
        out.clear();
      }
    }
  }
  out += "\n]}\n";
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  written += out.size();
  if (!file) {
    std::cerr << output << ": write failed\n";
    return 1;
  }
  std::cout << output.string() << ": " << written << " bytes, " << event_count << " events\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "large_kineto_trace: " << error.what() << '\n';
    return 1;
  }
}
