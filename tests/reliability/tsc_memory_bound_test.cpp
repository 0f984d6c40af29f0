// `tscope info` on .tsc files made to exhaust its memory, run as a child process under an
// address-space limit: chunk headers and counts claiming absurd sizes, zstd frames that inflate
// far beyond what their chunk's header claims, a file of 2 GiB (sparse: no disk) read a chunk at a
// time, and chunks of valid strings and spans that inflate past the limit. Each is bad input (exit
// 2) naming the file and the byte offset of the chunk, never tscope's own failure (exit 3).

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "limited_tscope_run.h"
#include "sanitizer_build.h"
#include "tsc_test_files.h"

namespace tscope {
namespace {

using testing::expect_bad_input;
using testing::kMiB;
using testing::LimitedRun;
using testing::run_info_limited;
using trace::testing::append_chunk;
using trace::testing::append_framed_chunk;
using trace::testing::Bytes;
using trace::testing::file_header;

constexpr std::uint8_t kStrings = 1;
constexpr std::uint8_t kProcesses = 2;
constexpr std::uint8_t kTracks = 3;
constexpr std::uint8_t kSpans = 4;
// The format's largest chunk payload (docs/trace-format.md).
constexpr std::size_t kMaxPayload = 64 * kMiB;

std::filesystem::path write_tsc(const std::string& name, const Bytes& file) {
  return testing::write_scratch(
      name, std::string_view(reinterpret_cast<const char*>(file.data()), file.size()));
}

void overwrite_le32(Bytes& file, std::size_t offset, std::uint32_t value) {
  for (int byte = 0; byte < 4; ++byte)
    file[offset + byte] = static_cast<std::uint8_t>(value >> (8 * byte));
}

void put_varint(Bytes& out, std::uint64_t value) {
  for (; value >= 0x80; value >>= 7)
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
  out.push_back(static_cast<std::uint8_t>(value));
}

// The byte offset of the first chunk: right after the 16-byte file header.
constexpr std::size_t kFirstChunk = 16;

TEST(TscMemoryBound, ChunkHeadersClaimingAbsurdSizesAreBadInputNamingTheField) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  struct Claim {
    std::uint32_t uncompressed;
    std::uint32_t compressed;
    std::size_t field_offset;
  };
  for (const Claim& claim : {Claim{0xffffffffu, 16, 4}, Claim{(64u << 20) + 1, 16, 4},
                             Claim{64u << 20, 0xfffffff0u, 8}}) {
    Bytes file = file_header();
    append_framed_chunk(file, kStrings, claim.uncompressed, Bytes(64, 0x28));
    // The compressed size as claimed, not as appended.
    overwrite_le32(file, kFirstChunk + 8, claim.compressed);
    const auto path = write_tsc("absurd_header.tsc", file);
    expect_bad_input(
        run_info_limited(path), path,
        "at byte " + std::to_string(kFirstChunk + claim.field_offset) + ": chunk claims " +
            std::to_string(claim.field_offset == 4 ? claim.uncompressed : claim.compressed));
    std::filesystem::remove(path);
  }
}

TEST(TscMemoryBound, CountsAndStringLengthsBeyondTheChunkAreBadInputNamingIt) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  struct Claim {
    Bytes payload;
    std::string message;
  };
  Bytes huge_count{1};
  put_varint(huge_count, std::uint64_t{1} << 62);
  Bytes huge_string{1, 1};
  put_varint(huge_string, std::uint64_t{1} << 40);
  for (const Claim& claim :
       {Claim{huge_count, "string count 4611686018427387904 exceeds the payload"},
        Claim{huge_string, "string of 1099511627776 bytes runs past the end"}}) {
    Bytes file = file_header();
    append_chunk(file, kStrings, claim.payload);
    const auto path = write_tsc("absurd_count.tsc", file);
    expect_bad_input(run_info_limited(path), path,
                     "at byte " + std::to_string(kFirstChunk) + ": strings chunk, payload byte");
    expect_bad_input(run_info_limited(path), path, claim.message);
    std::filesystem::remove(path);
  }
}

// A zstd frame of 1 GiB of zeros (a few KiB of RLE blocks) in a chunk whose header claims 1 KiB:
// refused before anything is inflated.
TEST(TscMemoryBound, AZstdFrameInflatingBeyondItsChunkHeaderIsBadInput) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  constexpr std::uint64_t kInflated = std::uint64_t{1} << 30;
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setPledgedSrcSize(context, kInflated);
  const Bytes zeros(16 * kMiB, 0);
  Bytes frame(ZSTD_compressBound(zeros.size()));
  std::size_t frame_size = 0;
  for (std::uint64_t fed = 0; fed < kInflated; fed += zeros.size()) {
    ZSTD_inBuffer in{zeros.data(), zeros.size(), 0};
    const ZSTD_EndDirective end = fed + zeros.size() == kInflated ? ZSTD_e_end : ZSTD_e_continue;
    for (std::size_t left = 1; in.pos < in.size || (end == ZSTD_e_end && left != 0);) {
      if (frame.size() - frame_size < ZSTD_CStreamOutSize()) frame.resize(frame.size() * 2);
      ZSTD_outBuffer out{frame.data(), frame.size(), frame_size};
      left = ZSTD_compressStream2(context, &out, &in, end);
      ASSERT_FALSE(ZSTD_isError(left)) << ZSTD_getErrorName(left);
      frame_size = out.pos;
    }
  }
  ZSTD_freeCCtx(context);
  frame.resize(frame_size);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), kInflated);
  Bytes file = file_header();
  append_framed_chunk(file, kStrings, 1024, frame);
  const auto path = write_tsc("zstd_bomb.tsc", file);
  expect_bad_input(run_info_limited(path), path,
                   "at byte " + std::to_string(kFirstChunk + 16) +
                       ": compressed payload does not declare the chunk's uncompressed size");
  std::filesystem::remove(path);
}

// A valid header and then 2 GiB of zeros, a hole in a sparse file: the reader reads the first
// chunk header (type 0) and stops, where reading the whole file first ran out of memory.
TEST(TscMemoryBound, AFileOf2GiBIsReadAChunkAtATime) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  const auto path = write_tsc("sparse.tsc", file_header());
  std::filesystem::resize_file(path, std::uint64_t{2} << 30);
  expect_bad_input(run_info_limited(path), path,
                   "at byte " + std::to_string(kFirstChunk) + ": unknown chunk type 0");
  std::filesystem::remove(path);
}

Bytes one_process_and_track() {
  Bytes file = file_header();
  // first 0, count 1: pid 0, name and host the empty string, rank 0, sort index 0.
  append_chunk(file, kProcesses, {0, 1, 0, 0, 0, 0, 0});
  // first 0, count 1: a host thread named "", of process 0, thread, device, stream and sort 0.
  append_chunk(file, kTracks, {0, 1, 0, 0, 0, 0, 0, 0, 0});
  return file;
}

// Chunks of the format's largest payload, each a few KiB of zstd, hold valid events and strings
// the trace keeps: past the address-space limit the reader stops with bad input naming the chunk
// it was reading, never with tscope's own out-of-memory failure.
TEST(TscMemoryBound, ValidChunksInflatingPastTheLimitAreBadInputNamingTheChunk) {
  if (testing::sanitizer_build()) GTEST_SKIP() << "sanitizers reserve terabytes of address space";
  // Distinct strings of nearly 64 MiB each, 1 GiB in all.
  Bytes strings = one_process_and_track();
  Bytes payload;
  for (std::uint64_t first_id = 1; first_id <= 16; ++first_id) {
    payload.clear();
    put_varint(payload, first_id);
    put_varint(payload, 1);
    const std::size_t length = kMaxPayload - 16;
    put_varint(payload, length);
    payload.resize(payload.size() + length, 'n');
    payload[payload.size() - length] = static_cast<std::uint8_t>('a' + first_id);
    append_chunk(strings, kStrings, payload);
  }
  // Empty spans of 5 bytes each (start, duration, name, category and flags all 0), 13 million a
  // chunk, 4 chunks.
  Bytes spans = one_process_and_track();
  payload = {0};
  const std::size_t count = (kMaxPayload - 16) / 5;
  put_varint(payload, count);
  payload.resize(payload.size() + 5 * count, 0);
  for (int chunk = 0; chunk < 4; ++chunk)
    append_chunk(spans, kSpans, payload);
  for (const auto& [name, file] :
       {std::pair{"strings.tsc", strings}, std::pair{"spans.tsc", spans}}) {
    SCOPED_TRACE(name);
    ASSERT_LT(file.size(), std::size_t{1} << 20);
    const auto path = write_tsc(name, file);
    const LimitedRun run = run_info_limited(path);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find(path.string() + ": at byte "), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("out of memory reading the trace"), std::string::npos) << run.output;
    EXPECT_LE(run.peak_resident_bytes, testing::kLimitedAddressSpace) << run.output;
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace tscope
