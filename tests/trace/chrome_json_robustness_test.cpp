// The Chrome JSON reader on damaged and hostile input: a missing closing bracket is accepted, a
// cut-off file loads what it can or fails with a FormatError, and nothing crashes. Inputs that
// once crashed the fuzzer are replayed from fuzz/corpus/chrome_json (fuzz/CMakeLists.txt).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gzip_text.h"
#include "test_data.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"

namespace tscope::trace {
namespace {

const auto kChromeArray =
    tscope::testing::shared_data_path("traces/chrome/speedscope_chrome65_simple_timeline.json");
const auto kKinetoObject = tscope::testing::shared_data_path(
    "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");

Trace parse(std::string_view json) {
  return read_chrome_json(ChromeJsonInput::from_bytes(json, "test.json"));
}

std::string decompressed(const std::filesystem::path& path) {
  return std::string(ChromeJsonInput::read_file(path).json());
}

TEST(ChromeJsonRobustnessTest, MissingClosingBracketIsAccepted) {
  TSCOPE_REQUIRE_FILE(kChromeArray);
  std::string json = decompressed(kChromeArray);
  const std::uint64_t spans = parse(json).counts().spans;
  json.erase(json.find_last_of(']'));
  EXPECT_EQ(parse(json).counts().spans, spans);
}

TEST(ChromeJsonRobustnessTest, MissingClosingBracketAfterTrailingCommaIsAccepted) {
  const Trace trace = parse(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},
{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":1},
)");
  EXPECT_EQ(trace.counts().spans, 2u);
  EXPECT_EQ(trace.metadata().lost_bytes, 0u);
}

TEST(ChromeJsonRobustnessTest, CutInsideAnEventLoadsTheEventsBeforeIt) {
  const std::string json =
      R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"d)";
  const Trace trace = parse(json);
  EXPECT_EQ(trace.counts().spans, 1u);
  EXPECT_GT(trace.metadata().lost_bytes, 0u);
}

// Every cut either loads a partial trace (never more than the whole) or throws FormatError.
void expect_cuts_never_crash(const std::string& json, const std::uint64_t whole_spans) {
  constexpr int kCuts = 97;
  int partial = 0;
  for (int cut = 0; cut < kCuts; ++cut) {
    const std::size_t length = json.size() * static_cast<std::size_t>(cut) / kCuts;
    try {
      const Trace trace = parse(std::string_view(json).substr(0, length));
      EXPECT_LE(trace.counts().spans, whole_spans) << "cut at " << length;
      ++partial;
    } catch (const FormatError& error) {
      EXPECT_NE(std::string(error.what()).find("test.json"), std::string::npos);
    }
  }
  // Cut points past the first few events keep something.
  EXPECT_GT(partial, kCuts / 2);
}

TEST(ChromeJsonRobustnessTest, ArrayFormCutAtManyOffsetsLoadsOrFailsCleanly) {
  TSCOPE_REQUIRE_FILE(kChromeArray);
  const std::string json = decompressed(kChromeArray);
  expect_cuts_never_crash(json, parse(json).counts().spans);
}

TEST(ChromeJsonRobustnessTest, ObjectFormCutAtManyOffsetsLoadsOrFailsCleanly) {
  TSCOPE_REQUIRE_FILE(kKinetoObject);
  const std::string json = decompressed(kKinetoObject);
  expect_cuts_never_crash(json, parse(json).counts().spans);
}

TEST(ChromeJsonRobustnessTest, GzipAndPlainBytesGiveTheSameTrace) {
  TSCOPE_REQUIRE_FILE(kKinetoObject);
  const std::string json = decompressed(kKinetoObject);
  EXPECT_EQ(parse(testing::gzip_text(json)), parse(json));
}

TEST(ChromeJsonRobustnessTest, NotJsonIsAFormatErrorNamingTheFile) {
  try {
    parse("this is not JSON");
    FAIL() << "expected FormatError";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.path(), "test.json");
    EXPECT_NE(std::string(error.what()).find("test.json"), std::string::npos);
  }
}

TEST(ChromeJsonRobustnessTest, JsonThatIsNotATraceIsAFormatError) {
  EXPECT_THROW(parse("42"), FormatError);
  EXPECT_THROW(parse(R"({"benchmarks": []})"), FormatError);
}

TEST(ChromeJsonRobustnessTest, AnUnclosedArrayWithoutEventsIsAnEmptyTrace) {
  // The array may begin far into the text: its window must still be empty, not reach back.
  for (const std::string& json :
       {std::string("["), std::string(" [ "), std::string(200, ' ') + "["}) {
    const Trace trace = parse(json);
    EXPECT_EQ(trace.counts().spans, 0u) << json.size();
    EXPECT_EQ(trace.metadata().lost_bytes, 0u) << json.size();
  }
}

TEST(ChromeJsonRobustnessTest, AValueBeforeTheRootIsAFormatError) {
  EXPECT_THROW(parse(R"("x"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}])"), FormatError);
  EXPECT_THROW(parse(R"("x" [)"), FormatError);
  EXPECT_THROW(parse("1 []"), FormatError);
  EXPECT_THROW(parse("] []"), FormatError);
}

TEST(ChromeJsonRobustnessTest, GzipInflatingPastTheLimitIsRejected) {
  const std::string zeros(1 << 20, ' ');
  EXPECT_THROW(
      ChromeJsonInput::from_bytes(testing::gzip_text("[" + zeros + "]"), "bomb.json.gz", 4096),
      FormatError);
}

TEST(ChromeJsonRobustnessTest, CorruptGzipIsAFormatErrorWithItsOffset) {
  std::string compressed =
      testing::gzip_text(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}])");
  compressed[compressed.size() / 2] = static_cast<char>(compressed[compressed.size() / 2] ^ 0x55);
  try {
    ChromeJsonInput::from_bytes(compressed, "corrupt.json.gz");
    FAIL() << "expected FormatError";
  } catch (const FormatError& error) {
    EXPECT_LE(error.offset(), compressed.size());
  }
}

TEST(ChromeJsonRobustnessTest, EventsWithUnusableFieldsAreSkippedAndCounted) {
  const Trace trace = parse(R"([{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":2},
{"ph":"X","name":"bad ts","pid":1,"tid":1,"ts":"soon","dur":2},
{"ph":"X","name":"negative","pid":1,"tid":1,"ts":1,"dur":-5},
{"ph":"X","name":"huge","pid":1,"tid":1,"ts":1e300,"dur":1},
{"ph":"b","name":"no id","pid":1,"tid":1,"ts":3,"cat":"c"},
{"ph":"E","pid":1,"tid":2,"ts":4},
{"ph":"B","name":"never ends","pid":1,"tid":2,"ts":5},
{"ph":"e","name":"async","pid":1,"tid":1,"ts":6,"cat":"c","id":7},
7])");
  EXPECT_EQ(trace.counts().spans, 1u);
  // Each reason is counted on its own, as `tscope info` lists them.
  const auto& values = trace.metadata().values;
  EXPECT_EQ(values.at("import.chrome.invalid_timestamp"), "2");  // "soon" and 1e300
  EXPECT_EQ(values.at("import.chrome.invalid_duration"), "1");
  EXPECT_EQ(values.at("import.chrome.event_not_an_object"), "1");
  EXPECT_EQ(values.at("import.chrome.async_without_id"), "1");
  EXPECT_EQ(values.at("import.chrome.end_without_begin"), "1");
  EXPECT_EQ(values.at("import.chrome.begin_without_end"), "1");
  EXPECT_EQ(values.at("import.chrome.async_end_without_begin"), "1");
  EXPECT_FALSE(values.contains("import.chrome.async_begin_without_end"));
}

}  // namespace
}  // namespace tscope::trace
