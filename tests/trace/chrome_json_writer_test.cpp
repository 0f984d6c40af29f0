// The Chrome JSON writer: model -> JSON -> model keeps every event and detail, the output is
// always valid JSON whatever the names hold, and it follows Kineto's conventions.

#include "tscope/trace/chrome_json_writer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sample_trace.h"
#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/trace/chrome_json_input.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/trace_builder.h"
#include "tscope/trace/trace_io.h"

namespace tscope::trace {
namespace {

using tscope::testing::scratch_path;

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

std::string describe_args(const Trace& trace, std::span<const Arg> args) {
  std::ostringstream text;
  for (const Arg& arg : args) {
    text << ' ' << trace.string(arg.key) << '=';
    if (const auto* integer = std::get_if<std::int64_t>(&arg.value)) {
      text << "i:" << *integer;
    } else if (const auto* real = std::get_if<double>(&arg.value)) {
      text << "d:" << *real;
    } else {
      text << "s:" << trace.string(std::get<StringArg>(arg.value).id);
    }
  }
  return text.str();
}

// Every field of one span, strings resolved, so spans of two traces compare as text.
std::string describe_span(const Trace& trace, std::uint32_t track, std::uint32_t span) {
  const SpanRecord record = trace.span_record(track, span);
  std::ostringstream text;
  text << trace.string(record.name) << " [" << to_string(record.category) << "] " << record.start
       << ".." << record.end << " corr=" << record.correlation_id
       << " ext=" << record.external_correlation_id;
  if (record.kernel) {
    const KernelInfo& kernel = *record.kernel;
    text << " grid=" << kernel.grid[0] << 'x' << kernel.grid[1] << 'x' << kernel.grid[2]
         << " block=" << kernel.block[0] << 'x' << kernel.block[1] << 'x' << kernel.block[2]
         << " regs=" << kernel.registers_per_thread << " smem=" << kernel.static_shared_bytes << '+'
         << kernel.dynamic_shared_bytes << " dev=" << kernel.device << " stream=" << kernel.stream;
  }
  if (record.copy) {
    text << " copy=" << record.copy->bytes << ' ' << to_string(record.copy->direction) << ' '
         << to_string(record.copy->source) << "->" << to_string(record.copy->destination);
  }
  if (record.op) {
    text << " op flops=" << record.op->flops << " read=" << record.op->bytes_read
         << " written=" << record.op->bytes_written << " shapes=";
    for (const auto& shape : record.op->input_shapes) {
      text << '(';
      for (const auto extent : shape)
        text << extent << ',';
      text << ')';
    }
    text << " in=";
    for (const auto id : record.op->tensors_read)
      text << id << ',';
    text << " out=";
    for (const auto id : record.op->tensors_written)
      text << id << ',';
  }
  text << describe_args(trace, record.args);
  return text.str();
}

// Each track as lines of text, keyed by its kind and name.
std::map<std::string, std::vector<std::string>> describe_tracks(const Trace& trace) {
  std::map<std::string, std::vector<std::string>> tracks;
  for (std::uint32_t index = 0; index < trace.tracks().size(); ++index) {
    const Track& track = trace.track(index);
    const TrackInfo& info = track.info();
    auto& lines =
        tracks[std::string(to_string(info.kind)) + " " + std::string(trace.string(info.name))];
    // Chrome sorts thread and stream rows only; counters and pools have no row of their own.
    const bool has_row = info.kind == TrackKind::kHostThread || info.kind == TrackKind::kGpuStream;
    lines.push_back("process " + std::string(trace.string(trace.processes()[info.process].name)) +
                    " device=" + std::to_string(info.device) +
                    " stream=" + std::to_string(info.stream) +
                    " sort=" + std::to_string(has_row ? info.sort_index : 0));
    for (std::uint32_t span = 0; span < track.spans().size(); ++span) {
      lines.push_back("span " + describe_span(trace, index, span));
    }
    for (std::uint32_t instant = 0; instant < track.instants().size(); ++instant) {
      const InstantRecord record = trace.instant_record(index, instant);
      lines.push_back("instant " + std::string(trace.string(record.name)) + " [" +
                      std::string(to_string(record.category)) + "] " + std::to_string(record.time) +
                      describe_args(trace, record.args));
    }
    for (std::size_t sample = 0; sample < track.counters().size(); ++sample) {
      std::ostringstream text;
      text << "counter " << track.counters().time[sample] << '=' << track.counters().value[sample];
      lines.push_back(text.str());
    }
    for (std::size_t event = 0; event < track.memory().size(); ++event) {
      const MemoryRecord record = track.memory().record(event);
      std::ostringstream text;
      text << "memory " << record.time << ' ' << to_string(record.action)
           << " addr=" << record.address << " bytes=" << record.bytes << " dev=" << record.device
           << " op=" << trace.string(record.owner_op) << " scope=" << trace.string(record.scope)
           << " totals=" << record.total_allocated << '/' << record.total_reserved;
      lines.push_back(text.str());
    }
  }
  return tracks;
}

std::vector<std::string> describe_flows(const Trace& trace) {
  std::vector<std::string> flows;
  for (const Flow& flow : trace.flows()) {
    flows.push_back(std::string(to_string(flow.kind)) + " " + std::to_string(flow.id) + ": " +
                    describe_span(trace, flow.from.track, flow.from.index) + " -> " +
                    describe_span(trace, flow.to.track, flow.to.index));
  }
  std::sort(flows.begin(), flows.end());
  return flows;
}

// Reports the first differing line of each track, which keeps failures on real traces readable.
// Process 10, "python", and its thread 11, "main": where the hand-built traces below record.
std::uint32_t add_python_process(TraceBuilder& builder) {
  Process process;
  process.pid = 10;
  process.name = builder.intern("python");
  return builder.add_process(process);
}

std::uint32_t add_main_thread(TraceBuilder& builder, std::uint32_t process) {
  TrackInfo host;
  host.process = process;
  host.thread_id = 11;
  host.name = builder.intern("main");
  return builder.add_track(host);
}

void expect_equivalent(const Trace& expected, const Trace& actual) {
  const auto expected_tracks = describe_tracks(expected);
  const auto actual_tracks = describe_tracks(actual);
  for (const auto& [name, lines] : expected_tracks) {
    const auto found = actual_tracks.find(name);
    ASSERT_NE(found, actual_tracks.end()) << "track missing after the round trip: " << name;
    ASSERT_EQ(lines.size(), found->second.size()) << name;
    for (std::size_t line = 0; line < lines.size(); ++line) {
      ASSERT_EQ(lines[line], found->second[line]) << name;
    }
  }
  EXPECT_EQ(expected_tracks.size(), actual_tracks.size());
  const auto expected_flows = describe_flows(expected);
  const auto actual_flows = describe_flows(actual);
  ASSERT_EQ(expected_flows.size(), actual_flows.size());
  for (std::size_t flow = 0; flow < expected_flows.size(); ++flow) {
    ASSERT_EQ(expected_flows[flow], actual_flows[flow]);
  }
  EXPECT_EQ(expected.metadata().dropped_events, actual.metadata().dropped_events);
  EXPECT_EQ(expected.metadata().values, actual.metadata().values);
}

TEST(ChromeJsonWriterTest, SampleTraceRoundTripsThroughJson) {
  const Trace original = testing::make_sample_trace();
  const auto path = scratch_path("sample.json");
  write_chrome_json(original, path);
  expect_equivalent(original, read_chrome_json(path));
}

TEST(ChromeJsonWriterTest, GzipOutputWhenPathEndsInGzRoundTrips) {
  const Trace original = testing::make_sample_trace();
  const auto path = scratch_path("sample.json.gz");
  write_chrome_json(original, path);
  const std::string bytes = read_bytes(path);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  expect_equivalent(original, read_chrome_json(path));
}

TEST(ChromeJsonWriterTest, RealKinetoTraceRoundTripsThroughJson) {
  const auto input = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(input);
  const Trace original = read_chrome_json(input);
  const auto path = scratch_path("gp100.json");
  write_chrome_json(original, path);
  expect_equivalent(original, read_chrome_json(path));
}

TEST(ChromeJsonWriterTest, ControlCharactersAndBrokenUtf8StillGiveValidJson) {
  TraceBuilder builder;
  const std::string hostile =
      std::string("a\x01\x1f\n\t\"q\"\\ \x7f ") + "\xff\xc3(" + "\xe2\x82\xac";
  const std::uint32_t process = builder.add_process({1, builder.intern(hostile), 0, -1, 0});
  const std::uint32_t track =
      builder.add_track({TrackKind::kHostThread, builder.intern(hostile), process, 2, -1, -1, 0});
  SpanRecord span;
  span.start = 10;
  span.end = 20;
  span.name = builder.intern(hostile);
  span.args = {{builder.intern(hostile), StringArg{builder.intern(hostile)}}};
  builder.add_span(track, span);
  builder.set_metadata_value(hostile, hostile);
  const auto path = scratch_path("hostile.json");
  write_chrome_json(builder.finalize(), path);

  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const auto json = simdjson::padded_string::load(path.string());
  ASSERT_EQ(json.error(), simdjson::SUCCESS);
  ASSERT_EQ(parser.parse(json.value_unsafe()).get(root), simdjson::SUCCESS)
      << "writer produced invalid JSON";

  // Valid UTF-8 (the euro sign) survives; each malformed byte reads back as U+FFFD.
  const std::string expected =
      std::string("a\x01\x1f\n\t\"q\"\\ \x7f ") + "\xef\xbf\xbd\xef\xbf\xbd(" + "\xe2\x82\xac";
  const Trace reread = read_chrome_json(path);
  const Track& row = reread.tracks().front();
  ASSERT_EQ(row.spans().size(), 1u);
  EXPECT_EQ(reread.string(row.spans().name[0]), expected);
  EXPECT_EQ(reread.string(row.info().name), expected);
}

TEST(ChromeJsonWriterTest, EventsUseRelativeMicrosecondsWithNanosecondDecimals) {
  TraceBuilder builder;
  const std::uint32_t process = builder.add_process({7, builder.intern("p"), 0, -1, 0});
  const std::uint32_t track =
      builder.add_track({TrackKind::kHostThread, builder.intern("t"), process, 8, -1, -1, 0});
  SpanRecord span;
  span.start = 1'000'000'000'000'000'000;
  span.end = 1'000'000'000'000'012'346;
  span.name = builder.intern("op");
  builder.add_span(track, span);
  const auto path = scratch_path("times.json");
  write_chrome_json(builder.finalize(), path);

  const std::string text = read_bytes(path);
  EXPECT_NE(text.find("\"baseTimeNanoseconds\": 1000000000000000000"), std::string::npos);
  EXPECT_NE(text.find("\"ts\":0,\"dur\":12.346"), std::string::npos) << text;
}

TEST(ChromeJsonWriterTest, LaunchFlowsAreAc2gPairsWithTheirOwnIdAndTheCorrelationInArgs) {
  const Trace original = testing::make_sample_trace();
  const auto path = scratch_path("flows.json");
  write_chrome_json(original, path);
  const std::string text = read_bytes(path);
  // The writer puts one event on each line; arrows are numbered from 1 in the trace's flow order.
  std::vector<std::string> ac2g;
  for (std::size_t at = text.find("\"cat\":\"ac2g\""); at != std::string::npos;
       at = text.find("\"cat\":\"ac2g\"", at + 1)) {
    const std::size_t line = text.rfind('\n', at) + 1;
    ac2g.push_back(text.substr(line, text.find('\n', at) - line));
  }
  ASSERT_EQ(ac2g.size(), 2u) << text;
  EXPECT_TRUE(ac2g[0].starts_with("{\"ph\":\"s\",\"id\":")) << ac2g[0];
  EXPECT_TRUE(ac2g[1].starts_with("{\"ph\":\"f\",\"bp\":\"e\",\"id\":")) << ac2g[1];
  for (const std::string& event : ac2g) {
    EXPECT_EQ(event.find("\"id\":77,"), std::string::npos) << event;
    EXPECT_NE(event.find("\"args\":{\"correlation\":77}}"), std::string::npos) << event;
  }
}

TEST(ChromeJsonWriterTest, EveryArrowHasItsOwnFlowIdWhenOneLaunchFeedsSeveralKernels) {
  TraceBuilder builder;
  const std::uint32_t owner = add_python_process(builder);
  const std::uint32_t host_track = add_main_thread(builder, owner);
  TrackInfo gpu;
  gpu.kind = TrackKind::kGpuStream;
  gpu.process = owner;
  gpu.stream = 7;
  gpu.name = builder.intern("stream 7");
  const std::uint32_t gpu_track = builder.add_track(gpu);
  SpanRecord launch;
  launch.name = builder.intern("cudaGraphLaunch");
  launch.category = Category::kRuntimeApi;
  launch.start = 1000;
  launch.end = 2000;
  launch.correlation_id = 5;
  builder.add_span(host_track, launch);
  for (int kernel = 0; kernel < 3; ++kernel) {
    SpanRecord span;
    span.name = builder.intern("kernel");
    span.category = Category::kKernel;
    span.start = 3000 + kernel * 1000;
    span.end = span.start + 500;
    span.correlation_id = 5;
    span.kernel = KernelInfo{};
    builder.add_span(gpu_track, span);
  }
  const auto path = scratch_path("one_launch_three_kernels.json");
  write_chrome_json(builder.finalize(), path);
  const std::string text = read_bytes(path);
  for (const char* id : {"1", "2", "3"}) {
    EXPECT_NE(text.find(std::string("{\"ph\":\"s\",\"id\":") + id + ","), std::string::npos) << id;
    EXPECT_NE(text.find(std::string("{\"ph\":\"f\",\"bp\":\"e\",\"id\":") + id + ","),
              std::string::npos)
        << id;
  }
  EXPECT_EQ(text.find("{\"ph\":\"s\",\"id\":4,"), std::string::npos);
  const Trace reread = read_chrome_json(path);
  EXPECT_EQ(reread.flows().size(), 3u);
  for (const Flow& flow : reread.flows())
    EXPECT_EQ(flow.id, 5u);
}

TEST(ChromeJsonWriterTest, TextualAndNegativeIdsBecomeNumbersWithTheirNamesInMetadata) {
  const auto path =
      tscope::testing::shared_data_path("traces/kineto/hta_critical_path_alexnet_a100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const auto exported = scratch_path("numeric_rows.json");
  write_chrome_json(read_chrome_json(path), exported);
  const std::string text = read_bytes(exported);
  EXPECT_EQ(text.find("\"pid\":\""), std::string::npos);
  EXPECT_EQ(text.find("\"tid\":\""), std::string::npos);
  EXPECT_EQ(text.find("\"pid\":-"), std::string::npos);
  EXPECT_EQ(text.find("\"tid\":-"), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"process_name\",\"pid\":2869225,\"tid\":0,\"ts\":0,\"args\":{"
                      "\"name\":\"Spans\"}"),
            std::string::npos);
}

TEST(ChromeJsonWriterTest, SaveAndLoadTraceDispatchOnJsonNamesAndContent) {
  const Trace original = testing::make_sample_trace();
  const auto path = scratch_path("dispatch.json.gz");
  save_trace(original, path);
  EXPECT_EQ(detect_input_format(path).format, TraceFormat::kChromeJson);
  expect_equivalent(original, load_trace(path));
}

TEST(ChromeJsonWriterTest, GpuRowsUseDeviceAsPidAndStreamAsTid) {
  const Trace original = testing::make_sample_trace();
  const auto path = scratch_path("rows.json");
  write_chrome_json(original, path);
  const std::string text = read_bytes(path);
  EXPECT_NE(text.find("\"name\":\"sgemm_128x64\",\"pid\":0,\"tid\":7,"), std::string::npos);
  EXPECT_NE(text.find("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"ts\":0,"
                      "\"args\":{\"name\":\"stream 7\"}}"),
            std::string::npos);
}

TEST(ChromeJsonWriterTest, OriginalCategoriesGlobalInstantsAndDisplayTimeUnitSurviveARoundTrip) {
  const std::string json = R"json({"displayTimeUnit": "ms", "traceEvents": [
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": 1, "tid": 1, "ts": 10, "dur": 90},
    {"ph": "X", "cat": "overhead", "name": "CUPTI Overhead", "pid": 1, "tid": 1, "ts": 20, "dur": 5},
    {"ph": "X", "cat": "cuda_profiler_range", "name": "range", "pid": 1, "tid": 1, "ts": 30, "dur": 5},
    {"ph": "i", "s": "g", "name": "Iteration Start", "pid": 1, "tid": 1, "ts": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 50, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "MmBackward", "pid": 1, "tid": 1, "ts": 60, "dur": 5},
    {"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": 3, "pid": 1, "tid": 1, "ts": 50},
    {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": 3, "pid": 1, "tid": 1, "ts": 60, "bp": "e"}
  ]})json";
  const Trace imported = read_chrome_json(ChromeJsonInput::from_bytes(json, "categories.json"));
  const auto once = scratch_path("categories_once.tsc");
  save_trace(imported, once);
  const auto path = scratch_path("categories.json");
  write_chrome_json(load_trace(once), path);
  const std::string text = read_bytes(path);
  for (const char* cat : {"Trace", "overhead", "cuda_profiler_range"}) {
    EXPECT_NE(text.find(std::string("\"cat\":\"") + cat + "\""), std::string::npos) << cat;
  }
  EXPECT_NE(text.find("{\"ph\":\"i\",\"s\":\"g\","), std::string::npos) << text;
  EXPECT_NE(text.find("\"displayTimeUnit\":\"ms\""), std::string::npos);
  EXPECT_NE(text.find("{\"ph\":\"s\",\"id\":1,\"cat\":\"fwdbwd\""), std::string::npos);
  EXPECT_EQ(text.find("chrome.cat"), std::string::npos);
  const Trace again = read_chrome_json(path);
  ASSERT_EQ(again.flows().size(), 1u);
  EXPECT_EQ(again.flows().front().kind, FlowKind::kForwardBackward);
}

TEST(ChromeJsonWriterTest, SeparateDetailKeepsArgsOutOfArgsAndReadsBackTheSame) {
  const Trace original = testing::make_sample_trace();
  const auto path = scratch_path("separate.json");
  const ChromeJsonPart part{original};
  write_chrome_json(std::span(&part, 1), path, {ChromeDetailPlacement::kSeparate});
  const std::string text = read_bytes(path);
  // The writer puts one event on each line.
  const auto matmul = text.find("\"name\":\"matmul\"");
  ASSERT_NE(matmul, std::string::npos);
  const std::string line = text.substr(matmul, text.find('\n', matmul) - matmul);
  EXPECT_NE(line.find("\"tscopeArgs\":{"), std::string::npos) << line;
  EXPECT_EQ(line.find("\"args\""), std::string::npos) << line;
  expect_equivalent(original, read_chrome_json(path));
}

TEST(ChromeJsonWriterTest, SpansThatOverlapWithoutNestingGetAnOverlapRowAndComeBackToTheirThread) {
  TraceBuilder builder;
  const std::uint32_t track = add_main_thread(builder, add_python_process(builder));
  for (const auto& [start, end] : {std::pair<TimeNs, TimeNs>{1000, 3000}, {2000, 4000}}) {
    SpanRecord span;
    span.name = builder.intern("op");
    span.category = Category::kCpuOp;
    span.start = start;
    span.end = end;
    builder.add_span(track, span);
  }
  const Trace original = builder.finalize();
  const auto path = scratch_path("overlap.json");
  write_chrome_json(original, path);
  const std::string text = read_bytes(path);
  EXPECT_NE(text.find("\"args\":{\"name\":\"main (overlapping)\"}"), std::string::npos) << text;
  expect_equivalent(original, read_chrome_json(path));
}

}  // namespace
}  // namespace tscope::trace
