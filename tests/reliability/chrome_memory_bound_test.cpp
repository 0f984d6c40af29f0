// `tscope info` on Chrome traces made to exhaust its memory, run as a child process under an
// address-space limit below their inflated size: gzip bombs of whitespace wherever JSON allows it
// inside the root value (skipped: the events around it load; before the root, the format's sniff of
// the first bytes finds no JSON), an event and a member holding a 1 GiB string, and arrays
// nested 100,000 deep (refused as bad input, exit 2, naming the file and byte offset). The child's
// peak resident memory stays far below the inflated text either way. Memory that runs out all the
// same is a FormatError too. Each input is generated here:
// the repository holds no large file.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "joined_text.h"
#include "limited_tscope_run.h"
#include "sanitizer_build.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"

namespace tscope {
namespace {

using testing::joined;

using testing::expect_bad_input;
using testing::expect_bounded;
using testing::kLimitedAddressSpace;
using testing::LimitedRun;
using testing::run_info_limited;
using testing::write_scratch;

constexpr std::uint64_t kInflatedBytes = std::uint64_t{1} << 30;

void append_le32(std::string& out, std::uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8)
    out += static_cast<char>((value >> shift) & 0xff);
}

// One gzip member whose text is `head`, `count` copies of `byte` and `tail`, a megabyte for each
// gigabyte of text: the deflate of one block of the byte after a full flush (which resets the
// window, so every such block compresses to the same bytes) is repeated, and the trailer's CRC is
// combined from the parts' CRCs.
std::string repeated_byte_gzip(std::string_view head, char byte, std::uint64_t count,
                               std::string_view tail) {
  constexpr std::size_t kBlock = std::size_t{16} << 20;
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  const auto compress = [&](std::string_view text, int flush) {
    std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    stream.avail_in = static_cast<uInt>(text.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, flush);
    out.resize(out.size() - stream.avail_out);
    return out;
  };
  const auto crc_of = [](std::string_view text) {
    return crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  };
  const std::string block_text(kBlock, byte);
  std::string gzip("\x1f\x8b\x08\0\0\0\0\0\x02\x03", 10);
  gzip += compress(head, Z_FULL_FLUSH);
  const std::string block = compress(block_text, Z_FULL_FLUSH);
  uLong crc = crc_of(head);
  const uLong block_crc = crc_of(block_text);
  for (std::uint64_t written = 0; written < count; written += kBlock) {
    gzip += block;
    crc = crc32_combine(crc, block_crc, static_cast<z_off_t>(kBlock));
  }
  gzip += compress(tail, Z_FINISH);
  deflateEnd(&stream);
  crc = crc32_combine(crc, crc_of(tail), static_cast<z_off_t>(tail.size()));
  const std::uint64_t text_size =
      head.size() + (count + kBlock - 1) / kBlock * kBlock + tail.size();
  append_le32(gzip, static_cast<std::uint32_t>(crc));
  append_le32(gzip, static_cast<std::uint32_t>(text_size));
  return gzip;
}

constexpr std::string_view kEventA = R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2})";
constexpr std::string_view kEventB = R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":2})";

TEST(ChromeMemoryBound, AGigabyteOfWhitespaceWhereverJsonAllowsItIsSkipped) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  const std::string a(kEventA);
  const std::string b(kEventB);
  struct Placement {
    const char* where;
    std::string head;
    std::string tail;
  };
  for (const Placement& placement : std::vector<Placement>{
           {"before the first event", R"({"traceEvents":[)", joined({a, ",", b, "]}"})},
           {"after a comma", joined({R"({"traceEvents":[)", a, ","}), joined({b, "]}"})},
           {"before a comma", joined({R"({"traceEvents":[)", a}), joined({",", b, "]}"})},
           {"among the members after the events", joined({R"({"traceEvents":[)", a, ",", b, "],"}),
            R"("traceName":"bomb"})"}}) {
    SCOPED_TRACE(placement.where);
    const auto path =
        write_scratch("whitespace.json.gz",
                      repeated_byte_gzip(placement.head, ' ', kInflatedBytes, placement.tail));
    const LimitedRun run = run_info_limited(path);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("2 spans"), std::string::npos) << run.output;
    expect_bounded(run);
    std::filesystem::remove(path);
  }
}

TEST(ChromeMemoryBound, AnEventOrMemberHoldingA1GiBStringIsBadInputNamingItsOffset) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  const std::string event_head = R"({"traceEvents":[)" + std::string(kEventA) +
                                 R"(,{"ph":"X","pid":1,"tid":1,"ts":5,"dur":2,"name":")";
  struct Case {
    std::string head;
    std::string tail;
    std::string message;
  };
  for (const Case& hostile :
       std::vector<Case>{{event_head, R"("}]})",
                          "at byte " + std::to_string(event_head.find(R"({"ph":"X","pid")")) +
                              ": an event is longer than the limit"},
                         {R"({"traceName":")", R"(","traceEvents":[]})",
                          "the members before \"traceEvents\" are longer than the limit"}}) {
    const auto path = write_scratch(
        "string.json.gz", repeated_byte_gzip(hostile.head, 'n', kInflatedBytes, hostile.tail));
    expect_bad_input(run_info_limited(path), path, hostile.message);
    std::filesystem::remove(path);
  }
}

TEST(ChromeMemoryBound, ArraysNested100000DeepAreBadInputNamingTheirOffset) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  const std::string head = R"({"traceEvents":[)";
  const auto path = write_scratch(
      "nested.json", head + std::string(100'000, '[') + std::string(100'000, ']') + "]}");
  const LimitedRun run = run_info_limited(path);
  expect_bad_input(run, path, "too deep");
  EXPECT_NE(run.output.find(path.string() + ": at byte " + std::to_string(head.size())),
            std::string::npos)
      << run.output;
  std::filesystem::remove(path);
}

// A limit raised far above any trace (a caller's choice) leaves the address-space limit to stop the
// reader: that is reported as bad input naming the file, not as tscope's own failure.
TEST(ChromeMemoryBound, MemoryRunningOutWhileReadingIsAFormatErrorNamingTheFile) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  const auto path = write_scratch(
      "huge_event.json.gz", repeated_byte_gzip(R"([{"ph":"X","name":")", 'n', 2 * kInflatedBytes,
                                               R"(","pid":1,"tid":1,"ts":1,"dur":2}])"));
  const pid_t child = fork();
  if (child == 0) {
    const rlimit limit{kLimitedAddressSpace, kLimitedAddressSpace};
    setrlimit(RLIMIT_AS, &limit);
    trace::ChromeJsonReadOptions options;
    options.max_event_bytes = 4 * kInflatedBytes;
    try {
      trace::read_chrome_json(path, options);
    } catch (const trace::FormatError& error) {
      const std::string message = error.what();
      const bool names_file_and_cause = message.find(path.string()) != std::string::npos &&
                                        message.find("out of memory") != std::string::npos;
      _exit(names_file_and_cause ? 2 : 4);
    } catch (const std::bad_alloc&) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << "0: loaded, 3: std::bad_alloc, 4: another FormatError";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tscope
