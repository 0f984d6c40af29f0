// The Chrome reader streams its input a window of events at a time: the trace it builds must not
// depend on where the windows fall, on whether the text came gzip-compressed, from a file or from
// memory, or on metadata and time bases that Kineto writes after the events.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "gzip_text.h"
#include "joined_text.h"
#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/trace/chrome_json_input.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"

namespace tscope::trace {
namespace {

using testing::joined;

using tscope::testing::shared_data_path;

constexpr const char* kRealTraces[] = {
    "traces/kineto/hta_critical_path_alexnet_a100.json.gz",
    "traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz",
    "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz",
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz",
    "traces/kineto/tracelens_mi210_gpu_only.json.gz",
    "traces/chrome/speedscope_chrome65_simple_timeline.json",
    "traces/multirank/sampled_rank-0.json.gz",
};

Trace read_in_windows(const ChromeJsonInput& input, std::size_t window_bytes) {
  ChromeJsonReadOptions options;
  options.window_bytes = window_bytes;
  return read_chrome_json(input, options);
}

TEST(ChromeJsonStreamingTest, WindowSizeDoesNotChangeAnyRealTrace) {
  for (const char* name : kRealTraces) {
    const auto path = shared_data_path(name);
    TSCOPE_REQUIRE_FILE(path);
    const ChromeJsonInput input = ChromeJsonInput::read_file(path);
    const Trace whole = read_in_windows(input, input.json().size() + 1);
    // 64 KiB windows cut every trace above into several; one byte makes each event its own.
    EXPECT_TRUE(read_in_windows(input, 64 << 10) == whole) << name;
    EXPECT_TRUE(read_in_windows(input, 1) == whole) << name;
    EXPECT_GT(whole.counts().spans, 0u) << name;
  }
}

TEST(ChromeJsonStreamingTest, GzipFileAndItsPlainTextGiveTheSameTrace) {
  const auto path = shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const auto plain = tscope::testing::scratch_path("streaming_plain.json");
  const std::string text(ChromeJsonInput::read_file(path).json());
  std::ofstream(plain, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  const Trace from_gzip = read_chrome_json(path);
  const Trace from_plain = read_chrome_json(plain);
  std::filesystem::remove(plain);
  EXPECT_TRUE(from_gzip == from_plain);
  EXPECT_GT(from_gzip.counts().spans, 0u);
}

TEST(ChromeJsonStreamingTest, NamesAndTimeBaseAfterTheEventsApplyToThem) {
  // Kineto's order: events, then the M events that name their rows, then the time base.
  const std::string json = R"({"traceEvents":[
    {"ph":"X","name":"op","pid":7,"tid":9,"ts":1.5,"dur":2},
    {"ph":"M","name":"process_name","pid":7,"tid":0,"args":{"name":"trainer"}},
    {"ph":"M","name":"thread_name","pid":7,"tid":9,"args":{"name":"main thread"}}
  ],"distributedInfo":{"rank":3},"baseTimeNanoseconds":1000000000})";
  for (const std::size_t window : {std::size_t{1}, std::size_t{1} << 20}) {
    const Trace trace = read_in_windows(ChromeJsonInput::from_bytes(json, "late.json"), window);
    ASSERT_EQ(trace.tracks().size(), 1u);
    EXPECT_EQ(trace.string(trace.track(0).info().name), "main thread");
    EXPECT_EQ(trace.string(trace.processes().at(0).name), "trainer");
    EXPECT_EQ(trace.processes().at(0).rank, 3);
    EXPECT_EQ(trace.track(0).spans().start.at(0), 1'000'001'500);
    EXPECT_EQ(trace.track(0).spans().end(0), 1'000'003'500);
  }
}

TEST(ChromeJsonStreamingTest, FileCutInsideAnEventKeepsTheWholeEventsBeforeIt) {
  const std::string whole = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},)"
                            R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":1},)";
  const std::string cut = whole + R"({"ph":"X","name":"c","pid)";
  for (const std::size_t window : {std::size_t{1}, std::size_t{1} << 20}) {
    const Trace trace = read_in_windows(ChromeJsonInput::from_bytes(cut, "cut.json"), window);
    EXPECT_EQ(trace.counts().spans, 2u);
    // Lost: the comma after "b" and the partial event.
    EXPECT_EQ(trace.metadata().lost_bytes, cut.size() - whole.size() + 1);
  }
}

TEST(ChromeJsonStreamingTest, StringsHoldingBracketsAndQuotesDoNotCutAnEvent) {
  const std::string json =
      R"({"traceEvents":[{"ph":"X","name":"a]}\"[{,","pid":1,"tid":1,"ts":1,"dur":1},)"
      R"({"ph":"X","name":"b\\","pid":1,"tid":1,"ts":3,"dur":1}]})";
  const Trace trace = read_in_windows(ChromeJsonInput::from_bytes(json, "strings.json"), 1);
  ASSERT_EQ(trace.counts().spans, 2u);
  EXPECT_EQ(trace.string(trace.track(0).spans().name.at(0)), "a]}\"[{,");
  EXPECT_EQ(trace.string(trace.track(0).spans().name.at(1)), "b\\");
}

TEST(ChromeJsonStreamingTest, BracketsQuotesAndEscapesAtEveryOffsetOfLongEventsKeepEachEvent) {
  // Events long enough for the scan's 64-byte blocks, whose strings put brackets, escaped quotes
  // and backslashes at every offset of a block, and whose args nest objects and arrays.
  std::string json = "[";
  std::vector<std::string> names;
  for (int event = 0; event < 300; ++event) {
    const std::string padding(static_cast<std::size_t>(event % 67), 'x');
    const bool escaped = event % 3 == 0;
    std::string name = padding;
    name += "]}[{";
    name += escaped ? "\"\\" : "";
    name += padding;
    names.push_back(name);
    if (event != 0) json += event % 2 == 0 ? ",\n" : ",";
    json += R"({"ph":"X","name":")";
    json += padding;
    json += "]}[{";
    json += escaped ? R"(\"\\)" : "";
    json += padding;
    json += R"(","pid":1,"tid":1,"ts":)";
    json += std::to_string(event * 10);
    json += R"(,"dur":1,"args":{"nested":{"list":[1,{"text":"}]"},[]],"more":")";
    json += padding;
    json += R"("}}})";
  }
  json += "]";
  const ChromeJsonInput input = ChromeJsonInput::from_bytes(json, "blocks.json");
  for (const std::size_t window : {std::size_t{1}, std::size_t{100}, json.size() + 1}) {
    const Trace trace = read_in_windows(input, window);
    ASSERT_EQ(trace.counts().spans, names.size()) << window;
    const SpanColumns& spans = trace.track(0).spans();
    for (std::size_t span = 0; span < names.size(); ++span) {
      EXPECT_EQ(trace.string(spans.name.at(span)), names[span]) << window << " " << span;
    }
  }
}

TEST(ChromeJsonStreamingTest, TextThatLooksLikeAnEventBoundaryDoesNotCutAWindow) {
  // Windows are cut where an event seems to end ("}" then "," and "{"); here strings hold those
  // bytes, nested objects end that way inside an event, and members after the event array too.
  // Past the first read chunk (256 KiB), which is scanned whole.
  constexpr int kEvents = 3000;
  std::string json = R"({"traceEvents":[)";
  for (int event = 0; event < kEvents; ++event) {
    if (event != 0) json += ",\n";
    json += R"({"ph":"X","name":"n}, {)";
    json += std::to_string(event);
    json += R"(","pid":1,"tid":1,"ts":)";
    json += std::to_string(event * 10);
    json += R"(,"dur":1,"args":{"list":[{"a":1}, {"b":2}],"text":"}, {\"ph\": \"X\"}, {"}})";
  }
  json += R"(],"deviceProperties":[{"id":0,"name":"A"}, {"id":1,"name":"B"}]})";
  const ChromeJsonInput input = ChromeJsonInput::from_bytes(json, "lookalikes.json");
  const Trace whole = read_in_windows(input, json.size() + 1);
  ASSERT_EQ(whole.counts().spans, std::uint64_t{kEvents});
  EXPECT_EQ(whole.metadata().values.at("device.1.name"), "B");
  for (const std::size_t window : {std::size_t{1}, std::size_t{37}, std::size_t{500},
                                   std::numeric_limits<std::size_t>::max()}) {
    EXPECT_TRUE(read_in_windows(input, window) == whole) << window;
  }
}

TEST(ChromeJsonStreamingTest, ProgressCountsTheFileBytesAndEventsAsTheReadGoes) {
  const auto path = shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  std::vector<LoadProgress> reports;
  ChromeJsonReadOptions options;
  options.window_bytes = 1 << 20;
  options.progress = [&](const LoadProgress& progress) { reports.push_back(progress); };
  read_chrome_json(path, options);
  // 35 MB of text in windows of 1 MiB and up to one read chunk (256 KiB) more.
  ASSERT_GE(reports.size(), 17u);
  for (std::size_t index = 1; index < reports.size(); ++index) {
    EXPECT_GE(reports[index].bytes_read, reports[index - 1].bytes_read);
    EXPECT_GT(reports[index].events, reports[index - 1].events);
  }
  // The gzip file's own bytes, not the text's; every element of the event array counted once.
  EXPECT_EQ(reports.back().bytes_total, std::filesystem::file_size(path));
  EXPECT_EQ(reports.back().bytes_read, reports.back().bytes_total);
  EXPECT_EQ(reports.back().events, 75718u);
}

// A gzip text up to 64 KiB is inflated whole before the import to learn its length (and read
// without a second thread); one byte longer, the bytes inflated ahead come first and the rest is
// inflated as it is read. Either way the trace is the one of its text, from a file, from memory,
// and split into two gzip members.
TEST(ChromeJsonStreamingTest, GzipTextsAroundTheInflateAheadLengthGiveTheTraceOfTheirText) {
  const std::string event = R"({"ph":"X","name":"op","pid":1,"tid":2,"ts":1,"dur":2})";
  const auto file = tscope::testing::scratch_path("streaming_small.json.gz");
  constexpr std::size_t kAhead = std::size_t{64} << 10;
  for (const std::size_t length :
       {std::size_t{200}, kAhead - 1, kAhead, kAhead + 1, kAhead + 2, 3 * kAhead}) {
    // Events, then spaces to the length, then the array's end.
    std::string text = "[" + event;
    while (text.size() + event.size() + 2 < length)
      text += "," + event;
    text.append(length - 1 - text.size(), ' ');
    text += "]";
    ASSERT_EQ(text.size(), length);
    const Trace expected = read_chrome_json(ChromeJsonInput::from_bytes(text, "plain.json"));
    const std::string one_member = testing::gzip_text(text);
    const std::string two_members = testing::gzip_text(text.substr(0, length / 2)) +
                                    testing::gzip_text(text.substr(length / 2));
    for (const std::string* compressed : {&one_member, &two_members}) {
      EXPECT_TRUE(read_chrome_json(ChromeJsonInput::from_bytes(*compressed, "text.json.gz")) ==
                  expected)
          << length;
      std::ofstream(file, std::ios::binary)
          .write(compressed->data(), static_cast<std::streamsize>(compressed->size()));
      EXPECT_TRUE(read_chrome_json(file) == expected) << length;
    }
    EXPECT_GT(expected.counts().spans, 0u);
  }
  std::filesystem::remove(file);
}

// Whitespace the JSON allows anywhere outside strings and tokens; runs of it far longer than a
// window are skipped, not held, and change nothing of the trace.
std::string blank_run(std::size_t length) {
  std::string run;
  run.reserve(length);
  while (run.size() < length)
    run += " \n\t\r"[run.size() % 4];
  return run;
}

TEST(ChromeJsonStreamingTest, LongRunsOfWhitespaceWhereverJsonAllowsThemChangeNothing) {
  const std::string a = R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2})";
  const std::string b = R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":2})";
  const std::vector<std::string> parts = {"",
                                          R"({"traceName":"run",)",
                                          R"("traceEvents":[)",
                                          a,
                                          ",",
                                          b,
                                          R"(],"baseTimeNanoseconds":7)",
                                          "}",
                                          ""};
  std::string plain;
  for (const std::string& part : parts)
    plain += part;
  const Trace expected = read_chrome_json(ChromeJsonInput::from_bytes(plain, "plain.json"));
  ASSERT_EQ(expected.counts().spans, 2u);
  const std::string run = blank_run(std::size_t{3} << 20);
  // Before the root, among the members before the events, before the first event, on either side
  // of the comma between events, after the last, among the members after, after the root.
  for (std::size_t gap = 0; gap + 1 < parts.size(); ++gap) {
    std::string json;
    for (std::size_t part = 0; part < parts.size(); ++part)
      json += parts[part] + (part == gap ? run : "");
    for (const std::size_t window : {std::size_t{1}, std::size_t{64} << 10, std::size_t{1} << 20}) {
      const Trace trace = read_in_windows(ChromeJsonInput::from_bytes(json, "blank.json"), window);
      EXPECT_TRUE(trace == expected) << "whitespace after part " << gap << ", window " << window;
      EXPECT_EQ(trace.metadata().lost_bytes, 0u) << gap;
    }
  }
}

TEST(ChromeJsonStreamingTest, FileCutAfterALongRunOfWhitespaceCountsAllOfItLost) {
  const std::string whole = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1})";
  const std::string cut = whole + "," + blank_run(std::size_t{3} << 20) + R"({"ph":"X","na)";
  // Cut among the members after the events: lost from the array's end on.
  const std::string object =
      R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1})";
  const std::string members_cut = object + "]," + blank_run(std::size_t{3} << 20) + R"("trace)";
  for (const std::size_t window : {std::size_t{1}, std::size_t{1} << 20}) {
    const Trace trace = read_in_windows(ChromeJsonInput::from_bytes(cut, "cut.json"), window);
    EXPECT_EQ(trace.counts().spans, 1u);
    EXPECT_EQ(trace.metadata().lost_bytes, cut.size() - whole.size()) << window;
    const Trace members_trace =
        read_in_windows(ChromeJsonInput::from_bytes(members_cut, "cut.json"), window);
    EXPECT_EQ(members_trace.counts().spans, 1u);
    EXPECT_EQ(members_trace.metadata().lost_bytes, members_cut.size() - object.size()) << window;
  }
}

// The limit bounds what the reader holds while it looks for an event's end, so the events tested
// against it are longer than what the reader reads ahead of its scan (a few windows).
constexpr std::size_t kLongText = std::size_t{8} << 20;
constexpr std::size_t kSmallLimit = std::size_t{64} << 10;

TEST(ChromeJsonStreamingTest, AnEventLongerThanTheLimitIsAFormatErrorNamingWhereItStarts) {
  ChromeJsonReadOptions options;
  options.max_event_bytes = kSmallLimit;
  const std::string small = R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1})";
  const std::string large =
      R"({"ph":"X","pid":1,"tid":1,"ts":3,"dur":1,"name":")" + std::string(kLongText, 'n') + "\"}";
  const std::string json = "[" + small + ",\n  " + large + "]";
  try {
    read_chrome_json(ChromeJsonInput::from_bytes(json, "large.json"), options);
    ADD_FAILURE() << "an event of 8 MiB loaded under a limit of 64 KiB";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.offset(), json.find(large));
    EXPECT_NE(std::string(error.what()).find("an event is longer than the limit of 65536 bytes"),
              std::string::npos)
        << error.what();
  }
  // Within the limit it loads.
  options.max_event_bytes = large.size();
  EXPECT_EQ(
      read_chrome_json(ChromeJsonInput::from_bytes(json, "large.json"), options).counts().spans,
      2u);
}

TEST(ChromeJsonStreamingTest, MembersAroundTheEventsLongerThanTheLimitAreAFormatError) {
  ChromeJsonReadOptions options;
  options.max_event_bytes = kSmallLimit;
  const std::string member = R"("traceName":")" + std::string(kLongText, 'n') + "\"";
  const std::string events =
      R"("traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])";
  for (const std::string& json :
       {joined({"{", member, ",", events, "}"}), joined({"{", events, ",", member, "}"})}) {
    try {
      read_chrome_json(ChromeJsonInput::from_bytes(json, "members.json"), options);
      ADD_FAILURE() << "members of 8 MiB loaded under a limit of 64 KiB";
    } catch (const FormatError& error) {
      EXPECT_NE(std::string(error.what()).find("longer than the limit of 65536 bytes"),
                std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace tscope::trace
