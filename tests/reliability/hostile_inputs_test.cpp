// Hostile inputs to every reader, each generated here (none is committed): JSON nested 100,000
// deep, a gzip stream that would inflate to 100 GB, numbers out of range, NaN and Infinity,
// strings of 1 GiB, .tsc chunk headers claiming huge sizes, and an Nsight Systems export with the
// right tables and absurd values. Each must load or fail with the reader's typed error, within a
// time bound and without its memory growing past what the reader's own limits allow.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sanitizer_build.h"
#include "scratch_folder.h"
#include "tsc_test_files.h"
#include "tscope/regress/error.h"
#include "tscope/regress/gbench_json_reader.h"
#include "tscope/regress/name_pattern.h"
#include "tscope/regress/policy.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/nsys_sqlite_reader.h"
#include "tscope/trace/tsc_reader.h"

namespace tscope {
namespace {

using trace::ChromeJsonInput;
using trace::FormatError;

// Bounded, not fast: a hang or a quadratic path blows through it. Under ASan every page the input
// touches is also shadowed; the 1 GiB string, mostly page faults, took 48 s in the gcc build and
// 78 s under ASan on the 2-core VM.
constexpr auto kTimeBound = std::chrono::seconds(testing::sanitizer_build() ? 180 : 60);

// Peak resident memory of this process so far, in bytes.
std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

// Runs `read`, which must throw `Error` (or, where `may_load`, return), in bounded time.
template <typename Error>
void expect_rejected_in_time(const std::function<void()>& read, bool may_load = false) {
  const auto start = std::chrono::steady_clock::now();
  bool rejected = false;
  try {
    read();
  } catch (const Error& error) {
    rejected = true;
    EXPECT_NE(std::string(error.what()), "");
  }
  EXPECT_TRUE(rejected || may_load) << "the hostile input loaded";
  EXPECT_LT(std::chrono::steady_clock::now() - start, kTimeBound);
}

trace::Trace chrome(std::string_view json) {
  return read_chrome_json(ChromeJsonInput::from_bytes(json, "hostile.json"));
}

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(HostileInputs, ChromeJsonNested100000DeepIsAFormatError) {
  expect_rejected_in_time<FormatError>([] { chrome(nested(100'000)); });
  // The same depth inside one event's arguments.
  expect_rejected_in_time<FormatError>(
      [] {
        chrome(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2,"args":{"x":)" +
               nested(100'000) + "}}]");
      },
      /*may_load=*/true);
}

TEST(HostileInputs, BenchmarkJsonNested100000DeepIsAnInputError) {
  expect_rejected_in_time<regress::RegressInputError>([] {
    regress::parse_gbench_json(R"({"benchmarks":)" + nested(100'000) + "}", "hostile.json");
  });
}

// Deflate cannot beat about 1032:1, so 100 GB of zeros takes about 100 MB of gzip: one block of
// zeros after a full flush (which resets the window, so every such block is the same bytes),
// repeated. The reader must stop at its inflation limit, not at the end of the stream.
std::string gzip_bomb(std::uint64_t inflated_bytes) {
  constexpr std::size_t kBlock = std::size_t{16} << 20;
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  const std::string zeros(kBlock, '\0');
  auto compress_block = [&] {
    std::string out(deflateBound(&stream, kBlock) + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
    stream.avail_in = static_cast<uInt>(zeros.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, Z_FULL_FLUSH);
    out.resize(out.size() - stream.avail_out);
    return out;
  };
  std::string bomb = compress_block();  // the gzip header and the first block
  const std::string block = compress_block();
  deflateEnd(&stream);
  bomb.reserve(bomb.size() + block.size() * (inflated_bytes / kBlock));
  for (std::uint64_t produced = 2 * kBlock; produced < inflated_bytes; produced += kBlock)
    bomb += block;
  return bomb;
}

TEST(HostileInputs, GzipThatWouldInflateTo100GBStopsAtTheLimit) {
  const std::string bomb = gzip_bomb(std::uint64_t{100} << 30);
  ASSERT_GT(bomb.size(), std::size_t{90} << 20);
  constexpr std::uint64_t kLimit = std::uint64_t{256} << 20;
  const std::uint64_t rss_before = peak_rss_bytes();
  expect_rejected_in_time<FormatError>(
      [&] { ChromeJsonInput::from_bytes(bomb, "bomb.json.gz", kLimit); });
  try {
    ChromeJsonInput::from_bytes(bomb, "bomb.json.gz", kLimit);
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("inflates beyond the limit"), std::string::npos)
        << error.what();
  }
  // What the reader held: the inflation limit, and at most as much again while growing (and the
  // sanitizers' quarantine of freed memory).
  EXPECT_LT(peak_rss_bytes() - rss_before,
            2 * kLimit + (std::uint64_t{64} << 20) +
                (testing::sanitizer_build() ? std::uint64_t{256} << 20 : 0));
}

TEST(HostileInputs, ChromeNumbersOutOfRangeNaNAndInfinityLoadOrFailCleanly) {
  for (const std::string value :
       {"1e400", "-1e400", "99999999999999999999999", "-9223372036854775809", "1e-400", "NaN",
        "Infinity", "-Infinity", "9223372036854775807", "-9223372036854775808", "1.8e308"}) {
    SCOPED_TRACE(value);
    for (const std::string field : {"ts", "dur", "pid", "tid", "id"}) {
      std::string event =
          R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2,"id":3,"args":{"v":1}})";
      const std::string key = "\"" + field + "\":";
      const std::size_t at = event.find(key) + key.size();
      event.replace(at, event.find_first_of(",}", at) - at, value);
      expect_rejected_in_time<FormatError>([&] { chrome("[" + event + "]"); }, true);
      // As a counter value and a memory event's size too.
      expect_rejected_in_time<FormatError>(
          [&] {
            chrome(
                std::string(R"([{"ph":"C","name":"c","pid":1,"tid":1,"ts":1,"args":{"v":)")
                    .append(value)
                    .append(
                        R"(}},{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":2,"s":"t","args":{"Bytes":)")
                    .append(value)
                    .append(R"(,"Total Allocated":)")
                    .append(value)
                    .append("}}]"));
          },
          true);
    }
  }
}

TEST(HostileInputs, BenchmarkNumbersOutOfRangeNaNAndInfinityLoadOrFailCleanly) {
  for (const std::string value : {"1e400", "-1e400", "NaN", "Infinity", "-1", "0", "1e308"}) {
    SCOPED_TRACE(value);
    const std::string json =
        std::string(R"({"context":{},"benchmarks":[{"name":"BM_A","run_type":"iteration",
      "iterations":)")
            .append(value)
            .append(R"(,"real_time":)")
            .append(value)
            .append(R"(,"cpu_time":)")
            .append(value)
            .append(R"(,"time_unit":"ns"}]})");
    expect_rejected_in_time<regress::RegressInputError>(
        [&] { regress::parse_gbench_json(json, "hostile.json"); }, true);
  }
}

TEST(HostileInputs, PolicyNaNAndInfinityAreRejected) {
  for (const std::string line : {"alpha nan", "alpha inf", "alpha 1e400", "threshold BM_* nan%",
                                 "threshold BM_* inf%", "threshold BM_* 1e400%"}) {
    expect_rejected_in_time<regress::RegressInputError>(
        [&] { regress::parse_policy_config(line, "hostile.policy"); });
  }
}

// One event whose name is a 1 GiB string: loads (the name is the user's) or is refused, and the
// reader holds no more than a few copies of it.
TEST(HostileInputs, ChromeEventNamedByA1GiBStringLoadsInBoundedMemory) {
  constexpr std::size_t kLength = std::size_t{1} << 30;
  std::string json = R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":")";
  json.append(kLength, 'n');
  json += "\"}]";
  const std::uint64_t rss_before = peak_rss_bytes();
  expect_rejected_in_time<FormatError>([&] { chrome(json); }, true);
  EXPECT_LT(peak_rss_bytes() - rss_before, 5 * std::uint64_t{kLength});
}

TEST(HostileInputs, PolicyOf1GiBIsRefusedBeforeItIsSplitUp) {
  std::string text = "alpha 0.01\nthreshold ";
  text.append(std::size_t{1} << 30, '*');
  text += " 5%\n";
  const std::uint64_t rss_before = peak_rss_bytes();
  expect_rejected_in_time<regress::RegressInputError>(
      [&] { regress::parse_policy_config(text, "hostile.policy"); });
  EXPECT_LT(peak_rss_bytes() - rss_before, std::uint64_t{64} << 20);
}

// Patterns nested 100,000 deep (a recursive compiler such as std::regex's could exhaust its stack)
// and one whose program would outgrow RE2's memory budget (a thousand Unicode letters): RE2
// compiles the first without recursion and refuses the second, each in bounded time.
TEST(HostileInputs, PolicyPatternsNested100000DeepOrPastTheMemoryBudgetAreAnsweredInTime) {
  const std::string nested = "re:" + std::string(100'000, '(') + "a" + std::string(100'000, ')');
  const auto start = std::chrono::steady_clock::now();
  const regress::ComparePolicy policy =
      regress::parse_policy_config("threshold " + nested + " 5%\n", "hostile.policy");
  EXPECT_TRUE(policy.thresholds.at(0).pattern.matches("a"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, kTimeBound);
  expect_rejected_in_time<regress::RegressInputError>(
      [] { regress::parse_policy_config("threshold re:\\pL{1000} 5%\n", "hostile.policy"); });
}

// A glob of many stars that does not match: a translation to std::regex backtracks
// exponentially here (the policy fuzzer found it); the glob matcher takes microseconds.
TEST(HostileInputs, GlobOfManyStarsMatchesInBoundedTime) {
  const regress::NamePattern pattern(std::string(120, '*') + "never");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(pattern.matches(std::string(4096, 'B')));
  EXPECT_TRUE(regress::NamePattern("BM_*_*/*").matches("BM_Matmul_f32/64"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// A valid file header and one chunk whose header claims the largest sizes the fields can hold;
// the reader must refuse before allocating what they claim.
TEST(HostileInputs, TscChunkHeadersClaimingHugeSizesAreRejectedBeforeAllocating) {
  using trace::testing::Bytes;
  for (const auto& [uncompressed, compressed] :
       std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {0xffffffffu, 0xffffffffu}, {(64u << 20) + 1, 16}, {64u << 20, 0xfffffff0u}}) {
    Bytes file = trace::testing::file_header();
    Bytes header{1, 0, 0, 0};
    trace::testing::put_le32(header, uncompressed);
    trace::testing::put_le32(header, compressed);
    trace::testing::put_le32(header, 0);
    file.insert(file.end(), header.begin(), header.end());
    file.resize(file.size() + 64, 0x28);
    const std::uint64_t rss_before = peak_rss_bytes();
    expect_rejected_in_time<FormatError>([&] { trace::read_tsc(file, "huge.tsc"); }, true);
    EXPECT_LT(peak_rss_bytes() - rss_before, std::uint64_t{64} << 20);
  }
}

// The trimmed real export of fuzz/ with every numeric column of the activity tables set to an
// absurd value in turn: INT64_MIN and MAX, -1, 1e300 and text.
TEST(HostileInputs, NsysExportWithRightTablesAndAbsurdValuesLoadsOrFailsCleanly) {
  const std::filesystem::path copy = tscope::testing::scratch_path("tscope-absurd.sqlite");
  for (const char* value : {"-9223372036854775808", "9223372036854775807", "-1", "1e300", "'x'"}) {
    for (const char* table :
         {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "NVTX_EVENTS", "StringIds", "ThreadNames", "PROCESSES", "TARGET_INFO_GPU"}) {
      SCOPED_TRACE(std::string(table) + " = " + value);
      std::filesystem::copy_file(TSCOPE_NSYS_BASE, copy,
                                 std::filesystem::copy_options::overwrite_existing);
      std::filesystem::permissions(copy, std::filesystem::perms::owner_write,
                                   std::filesystem::perm_options::add);
      sqlite3* database = nullptr;
      ASSERT_EQ(sqlite3_open(copy.c_str(), &database), SQLITE_OK);
      std::vector<std::string> columns;
      sqlite3_stmt* info = nullptr;
      sqlite3_prepare_v2(database, (std::string("PRAGMA table_info(") + table + ")").c_str(), -1,
                         &info, nullptr);
      while (sqlite3_step(info) == SQLITE_ROW)
        columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(info, 1)));
      sqlite3_finalize(info);
      // OR REPLACE: a primary key set to one value for every row keeps one row.
      std::string update = std::string("UPDATE OR REPLACE ") + table + " SET ";
      for (std::size_t i = 0; i < columns.size(); ++i)
        update += (i ? ", " : "") + columns[i] + " = " + value;
      const int updated = sqlite3_exec(database, update.c_str(), nullptr, nullptr, nullptr);
      // An INTEGER PRIMARY KEY refuses a real or text: the schema keeps that value out.
      if (updated == SQLITE_MISMATCH) {
        sqlite3_close(database);
        continue;
      }
      ASSERT_EQ(updated, SQLITE_OK) << sqlite3_errmsg(database);
      sqlite3_close(database);
      expect_rejected_in_time<FormatError>([&] { trace::read_nsys_sqlite(copy); }, true);
    }
  }
  std::filesystem::remove(copy);
}

}  // namespace
}  // namespace tscope
