#pragma once
// Small lookups over a recorded trace that the profiler tests share: spans and instants by name,
// the track a span is on, a span's arguments.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scratch_folder.h"
#include "tscope/trace/trace.h"

namespace tscope::testing {

struct SpanAt {
  std::uint32_t track = 0;
  std::uint32_t index = 0;
};

inline std::vector<SpanAt> spans_named(const trace::Trace& recorded, std::string_view name) {
  std::vector<SpanAt> found;
  for (std::uint32_t track = 0; track < recorded.tracks().size(); ++track) {
    const trace::SpanColumns& spans = recorded.track(track).spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (recorded.string(spans.name[i]) == name) found.push_back({track, i});
    }
  }
  return found;
}

inline std::size_t instants_named(const trace::Trace& recorded, std::string_view name) {
  std::size_t count = 0;
  for (const trace::Track& track : recorded.tracks()) {
    for (const trace::StringId id : track.instants().name)
      count += recorded.string(id) == name;
  }
  return count;
}

inline std::string_view track_name(const trace::Trace& recorded, std::uint32_t track) {
  return recorded.string(recorded.track(track).info().name);
}

// The span's argument `key` as text ("" when absent): integers and doubles are formatted.
inline std::string span_arg(const trace::Trace& recorded, SpanAt span, std::string_view key) {
  const trace::SpanRecord record = recorded.span_record(span.track, span.index);
  for (const trace::Arg& arg : record.args) {
    if (recorded.string(arg.key) != key) continue;
    if (const auto* text = std::get_if<trace::StringArg>(&arg.value)) {
      return std::string(recorded.string(text->id));
    }
    if (const auto* integer = std::get_if<std::int64_t>(&arg.value))
      return std::to_string(*integer);
    return std::to_string(std::get<double>(arg.value));
  }
  return "";
}

// A fresh path in this process's scratch folder, named for the running test.
inline std::filesystem::path temporary_trace_path() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto path =
      scratch_path(std::string("tscope-") + test->test_suite_name() + "-" + test->name() + ".tsc");
  std::filesystem::remove(path);
  return path;
}

}  // namespace tscope::testing
