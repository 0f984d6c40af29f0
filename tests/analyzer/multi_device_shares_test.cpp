// Shares of the step on traces of several GPUs and processes: a cost is the largest GPU's or
// process's, never the GPUs' or processes' times summed against one step.

#include <gtest/gtest.h>

#include <string>

#include "real_traces.h"
#include "trace_records.h"
#include "tscope/analyzer/copies.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::analyzer {
namespace {

using trace::Category;

constexpr trace::TimeNs kUs = 1'000;

// Two processes, each driving its own GPU through one 100 µs step, and on each GPU a pageable
// host-to-device copy of 80 µs launched by a blocking cudaMemcpy the host waits for.
trace::Trace two_gpus_copying() {
  trace::TraceBuilder builder;
  std::uint32_t correlation = 0;
  for (std::int32_t device = 0; device < 2; ++device) {
    trace::Process process;
    process.pid = 100 + device;
    process.name = builder.intern("train");
    const std::uint32_t index = builder.add_process(process);
    const std::uint32_t host = builder.add_track(
        testing::track_info(builder, index, trace::TrackKind::kHostThread, "main"));
    trace::TrackInfo stream =
        testing::track_info(builder, index, trace::TrackKind::kGpuStream, "stream 7");
    stream.device = device;
    const std::uint32_t gpu = builder.add_track(stream);
    builder.add_span(host, testing::named_span(builder, "step 1", Category::kStep, 0, 100 * kUs));
    trace::SpanRecord call =
        testing::named_span(builder, "cudaMemcpy", Category::kRuntimeApi, 5 * kUs, 95 * kUs);
    call.correlation_id = ++correlation;
    builder.add_span(host, call);
    trace::SpanRecord copy =
        testing::named_span(builder, "Memcpy HtoD", Category::kMemcpy, 10 * kUs, 90 * kUs);
    copy.copy = trace::CopyInfo{1 << 20, trace::CopyDirection::kHostToDevice,
                                trace::MemoryKind::kPageable, trace::MemoryKind::kDevice};
    copy.correlation_id = correlation;
    builder.add_span(gpu, copy);
  }
  return builder.finalize();
}

TEST(MultiDeviceShares, CopiesOnTwoGpusCostTheLargestGpusTimeNotTheirSum) {
  const trace::Trace trace = two_gpus_copying();
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_copy_and_sync_problems(context);
  const Finding* pageable = find_kind(findings, "pageable_copy");
  ASSERT_NE(pageable, nullptr);
  EXPECT_EQ(pageable->metric("copies"), 2);
  EXPECT_DOUBLE_EQ(pageable->cost.time_per_step_ns, 80 * kUs);
  EXPECT_LE(pageable->cost.share_of_step, 1.0);
  const Finding* synchronous = find_kind(findings, "synchronous_copy");
  ASSERT_NE(synchronous, nullptr);
  EXPECT_DOUBLE_EQ(synchronous->cost.time_per_step_ns, 90 * kUs);
  EXPECT_LE(synchronous->cost.share_of_step, 1.0);
}

// Every finding's share of the step and every gain within the step, on the two-H100 Nsight
// export of ../shared (two processes, one GPU each).
TEST(MultiDeviceShares, NsightTwoH100SharesStayWithinTheStep) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "nsys/nsysai_h100x2_sp2_fa3_1s_window_nvtx.sqlite");
  const Report report = run_report(trace, {});
  for (const Finding& finding : report.findings) {
    EXPECT_GE(finding.cost.share_of_step, 0) << finding.title;
    EXPECT_LE(finding.cost.share_of_step, 1.0 + 1e-9) << finding.title;
    EXPECT_LE(finding.estimated_gain_ns_per_step, report.steps.mean_ns) << finding.title;
  }
}

}  // namespace
}  // namespace tscope::analyzer
