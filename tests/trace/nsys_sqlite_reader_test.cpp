// Imports the real Nsight Systems export under ../shared/data/traces/nsys. Expected figures come
// from querying the file with python3's sqlite3 module, independently of this reader.

#include "tscope/trace/nsys_sqlite_reader.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_io.h"

namespace tscope::trace {
namespace {

const auto kSaxpy =
    tscope::testing::shared_data_path("traces/nsys/pipit_saxpy_mpi_cuda_perlmutter_a100.sqlite");

std::uint64_t count_flows(const Trace& trace, FlowKind kind) {
  return static_cast<std::uint64_t>(
      std::count_if(trace.flows().begin(), trace.flows().end(),
                    [&](const Flow& flow) { return flow.kind == kind; }));
}

TEST(NsysSqliteReaderTest, SaxpyExportHasExactCountsByKind) {
  TSCOPE_REQUIRE_FILE(kSaxpy);
  const TraceCounts counts = read_nsys_sqlite(kSaxpy).counts();
  const auto spans = [&](Category category) {
    return counts.spans_by_category[static_cast<int>(category)];
  };
  EXPECT_EQ(spans(Category::kKernel), 5u);
  EXPECT_EQ(spans(Category::kMemcpy), 15u);
  EXPECT_EQ(spans(Category::kMemset), 0u);
  // 95 rows of CUPTI_ACTIVITY_KIND_RUNTIME: 94 cuda* calls and cuModuleGetLoadingMode.
  EXPECT_EQ(spans(Category::kRuntimeApi), 94u);
  EXPECT_EQ(spans(Category::kDriverApi), 1u);
  // 24 NVTX rows: 22 push/pop ranges, one domain creation and one thread name.
  EXPECT_EQ(spans(Category::kUserAnnotation), 22u);
}

TEST(NsysSqliteReaderTest, SaxpyCopiesHaveDirectionMemoryKindsAndBytes) {
  TSCOPE_REQUIRE_FILE(kSaxpy);
  const Trace trace = read_nsys_sqlite(kSaxpy);
  std::map<std::tuple<CopyDirection, MemoryKind, MemoryKind>, std::pair<int, std::uint64_t>> copies;
  // Per copy span: the trace holds each distinct CopyInfo once, shared by the spans that repeat it.
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    for (std::uint32_t span = 0; span < trace.track(track).spans().size(); ++span) {
      const SpanDetail* detail = trace.span_detail(track, span);
      if (detail == nullptr || detail->copy == kNoIndex) continue;
      const CopyInfo& copy = trace.copies()[detail->copy];
      auto& [count, bytes] = copies[{copy.direction, copy.source, copy.destination}];
      ++count;
      bytes += copy.bytes;
    }
  }
  const decltype(copies) expected = {
      {{CopyDirection::kHostToDevice, MemoryKind::kPageable, MemoryKind::kDevice},
       {10, 2'621'440'000}},
      {{CopyDirection::kDeviceToHost, MemoryKind::kDevice, MemoryKind::kPageable},
       {5, 1'310'720'000}},
  };
  EXPECT_EQ(copies, expected);
}

TEST(NsysSqliteReaderTest, SaxpyKernelsCarryDemangledNameAndLaunchGeometry) {
  TSCOPE_REQUIRE_FILE(kSaxpy);
  const Trace trace = read_nsys_sqlite(kSaxpy);
  int kernels = 0;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const SpanColumns& spans = trace.track(track).spans();
    for (std::uint32_t span = 0; span < spans.size(); ++span) {
      if (spans.category[span] != Category::kKernel) continue;
      ++kernels;
      const SpanRecord record = trace.span_record(track, span);
      EXPECT_EQ(trace.string(record.name), "saxpy(double *, double *, double *, double, int)");
      ASSERT_TRUE(record.kernel.has_value());
      EXPECT_EQ(record.kernel->grid, (std::array<std::uint32_t, 3>{2, 1, 1}));
      EXPECT_EQ(record.kernel->block, (std::array<std::uint32_t, 3>{512, 1, 1}));
      EXPECT_EQ(record.kernel->registers_per_thread, 26u);
      EXPECT_EQ(record.kernel->device, 0);
      EXPECT_EQ(record.kernel->stream, 7);
    }
  }
  EXPECT_EQ(kernels, 5);
}

TEST(NsysSqliteReaderTest, TimestampsStayInTheSessionClock) {
  TSCOPE_REQUIRE_FILE(kSaxpy);
  const Trace trace = read_nsys_sqlite(kSaxpy);
  // The earliest imported event is the MPI_Init NVTX range; the latest the end of MPI_Finalize.
  EXPECT_EQ(trace.begin_time(), 65'117'824);
  EXPECT_EQ(trace.end_time(), 2'088'944'716);
}

TEST(NsysSqliteReaderTest, SaxpyLaunchesLinkToEveryKernelAndCopy) {
  TSCOPE_REQUIRE_FILE(kSaxpy);
  const Trace trace = read_nsys_sqlite(kSaxpy);
  EXPECT_EQ(count_flows(trace, FlowKind::kLaunchToKernel), 20u);
  for (const Flow& flow : trace.flows()) {
    const Track& from = trace.track(flow.from.track);
    EXPECT_EQ(from.info().kind, TrackKind::kHostThread);
    const std::string_view launch = trace.string(from.spans().name[flow.from.index]);
    EXPECT_TRUE(launch.starts_with("cudaLaunchKernel") || launch.starts_with("cudaMemcpy"))
        << launch;
  }
}

TEST(NsysSqliteReaderTest, SaxpyProcessAndThreadNamesComeFromTheExport) {
  TSCOPE_REQUIRE_FILE(kSaxpy);
  const Trace trace = read_nsys_sqlite(kSaxpy);
  ASSERT_EQ(trace.processes().size(), 1u);
  EXPECT_EQ(trace.processes()[0].pid, 1230493);
  EXPECT_EQ(trace.string(trace.processes()[0].name), "./saxpy-mpi-cuda");
  const auto main_thread =
      std::find_if(trace.tracks().begin(), trace.tracks().end(), [](const Track& t) {
        return t.info().kind == TrackKind::kHostThread && t.info().thread_id == 1230493;
      });
  ASSERT_NE(main_thread, trace.tracks().end());
  EXPECT_EQ(trace.string(main_thread->info().name), "MPI Rank 0");
  EXPECT_EQ(trace.metadata().values.at("device.0.name"), "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(trace.metadata().source_format, "nsys-sqlite");
}

TEST(NsysSqliteReaderTest, LoadTraceRecognisesTheExportByContent) {
  TSCOPE_REQUIRE_FILE(kSaxpy);
  EXPECT_EQ(detect_input_format(kSaxpy).format, TraceFormat::kNsysSqlite);
  EXPECT_EQ(load_trace(kSaxpy).counts().spans, 5u + 15u + 95u + 22u);
}

TEST(NsysSqliteReaderTest, RangesItCannotUseAreCountedByReason) {
  // An NVTX range closed, one still open when the capture stopped (nsys leaves its end NULL),
  // and one whose end comes before its start; a mark.
  const auto path = tscope::testing::scratch_path("nvtx_reasons.sqlite");
  std::filesystem::remove(path);
  sqlite3* database = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &database), SQLITE_OK);
  const char* script =
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
      " text TEXT, textId INTEGER, globalTid INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (10, 20, 59, 'closed', NULL, 7), (30, NULL, 59, 'open',"
      " NULL, 7), (50, 40, 60, 'backwards', NULL, 7), (60, NULL, 34, 'mark', NULL, 7);";
  EXPECT_EQ(sqlite3_exec(database, script, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(database);
  const Trace trace = read_nsys_sqlite(path);
  EXPECT_EQ(trace.counts().spans, 2u);  // the backwards range kept, at zero length
  EXPECT_EQ(trace.counts().instants, 1u);
  const auto& values = trace.metadata().values;
  EXPECT_EQ(values.at("import.nsys.nvtx_range_without_end"), "1");
  EXPECT_EQ(values.at("import.nsys.nvtx_range_ends_before_start"), "1");
  std::filesystem::remove(path);
}

TEST(NsysSqliteReaderTest, FileThatIsNotSqliteIsAFormatError) {
  const auto path = tscope::testing::scratch_path("not_sqlite.sqlite");
  std::ofstream(path) << "this is not a database, just text long enough to have a header";
  EXPECT_THROW(read_nsys_sqlite(path), FormatError);
}

TEST(NsysSqliteReaderTest, MissingFileIsAnIoError) {
  EXPECT_THROW(read_nsys_sqlite("/nonexistent/tscope/trace.sqlite"), IoError);
}

}  // namespace
}  // namespace tscope::trace
