// Valid but hostile traces for the analyzer: negative durations, spans that overlap without
// nesting, duplicate correlation ids, timestamps at the limits of a trace's time range (2^62 ns,
// so that no duration overflows int64) and a million tracks. The
// full report (every analysis) must come back without a crash, in bounded time, with finite
// numbers and no share above 100% in any rendering.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <regex>
#include <string>

#include "time_range.h"
#include "tscope/analyzer/render.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_builder.h"

namespace tscope {
namespace {

using trace::TimeNs;

void expect_finite_share(double value, const std::string& what) {
  EXPECT_TRUE(std::isfinite(value)) << what << " = " << value;
  EXPECT_GE(value, 0.0) << what;
  EXPECT_LE(value, 1.0 + 1e-9) << what;
}

// Every number of the report finite, every part of the step no longer than the step, every share
// of a step within 0..1, and no "nan", "inf" or share above 100% in the text, Markdown and JSON.
void expect_sane(const analyzer::Report& report) {
  if (report.time) {
    const analyzer::TimeBreakdown& time = *report.time;
    EXPECT_TRUE(std::isfinite(time.step_ns) && time.step_ns >= 0) << time.step_ns;
    for (const double part :
         {time.gpu_compute_ns, time.gpu_communication_ns, time.gpu_copy_ns, time.gpu_memset_ns,
          time.gpu_idle_host_wait_ns, time.gpu_idle_kernel_wait_ns, time.gpu_idle_other_ns,
          time.host_data_wait_ns, time.host_sync_ns, time.host_optimizer_ns, time.host_ops_ns,
          time.host_other_ns}) {
      EXPECT_TRUE(std::isfinite(part)) << part;
      EXPECT_GE(part, 0.0);
      EXPECT_LE(part, time.step_ns * (1 + 1e-9) + 1) << "a part longer than the step";
    }
  }
  for (const analyzer::Finding& finding : report.findings) {
    expect_finite_share(finding.cost.share_of_step, finding.title + ": share_of_step");
    EXPECT_TRUE(std::isfinite(finding.cost.time_per_step_ns)) << finding.title;
    EXPECT_TRUE(std::isfinite(finding.estimated_gain_ns_per_step)) << finding.title;
    for (const analyzer::Metric& metric : finding.metrics)
      EXPECT_TRUE(std::isfinite(metric.value)) << finding.title << ": " << metric.name;
  }
  const std::regex not_a_number(R"(\b-?(nan|inf|infinity)\b)", std::regex::icase);
  const std::regex percentage(R"((\d+(?:\.\d+)?)\s?%)");
  for (const std::string& rendered :
       {analyzer::render_text(report), analyzer::render_markdown(report),
        analyzer::render_json(report)}) {
    EXPECT_FALSE(std::regex_search(rendered, not_a_number)) << rendered;
    for (auto match = std::sregex_iterator(rendered.begin(), rendered.end(), percentage);
         match != std::sregex_iterator(); ++match) {
      EXPECT_LE(std::stod((*match)[1]), 100.0) << match->str() << " in\n" << rendered;
    }
  }
}

analyzer::Report analyze_in_bounded_time(const trace::Trace& trace) {
  const auto start = std::chrono::steady_clock::now();
  analyzer::Report report = analyzer::run_report(trace, {}, "hostile");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(120));
  return report;
}

// Kineto-style JSON: two profiler steps, runtime calls and kernels that share correlation ids,
// a span with a negative duration, spans that overlap without nesting, and events at the ends of
// the microsecond range that still fits int64 nanoseconds.
TEST(HostileTraces, KinetoJsonWithNegativeDurationsOverlapsAndDuplicateCorrelations) {
  const std::string json = R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1000,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":-500},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":100,"dur":300},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":200,"dur":300},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":5,"args":{"correlation":7}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1120,"dur":5,"args":{"correlation":7}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":130,"dur":400,"args":{"correlation":7,"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":300,"dur":900,"args":{"correlation":7,"device":0,"stream":7}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":1500,"dur":-10,"args":{"correlation":7,"device":0,"stream":7,"bytes":-1}},
{"ph":"X","cat":"cpu_op","name":"late","pid":1,"tid":2,"ts":9223372036854,"dur":1},
{"ph":"X","cat":"cpu_op","name":"early","pid":1,"tid":2,"ts":-9223372036854,"dur":1}
]})";
  const trace::Trace trace =
      trace::read_chrome_json(trace::ChromeJsonInput::from_bytes(json, "hostile.json"));
  expect_sane(analyze_in_bounded_time(trace));
}

struct Builder {
  trace::TraceBuilder builder;
  std::uint32_t process = 0;
  Builder() {
    trace::Process info;
    info.pid = 1;
    info.name = builder.intern("hostile");
    process = builder.add_process(info);
  }
  std::uint32_t track(trace::TrackKind kind, const std::string& name, std::int64_t thread) {
    trace::TrackInfo info;
    info.kind = kind;
    info.process = process;
    info.name = builder.intern(name);
    info.thread_id = thread;
    if (kind == trace::TrackKind::kGpuStream) {
      info.device = 0;
      info.stream = 7;
    }
    return builder.add_track(info);
  }
  void span(std::uint32_t track, const char* name, trace::Category category, TimeNs start,
            TimeNs end, std::uint32_t correlation = 0) {
    trace::SpanRecord record;
    record.name = builder.intern(name);
    record.category = category;
    record.start = start;
    record.end = end;
    record.correlation_id = correlation;
    builder.add_span(track, record);
  }
};

// Times at both ends of what a trace holds (+-2^62 ns, so that any duration fits int64): steps,
// launches and kernels there, and one span across the whole range. Beyond it the builder refuses.
TEST(HostileTraces, TimestampsAtTheLimitsOfTheTimeRange) {
  constexpr TimeNs kMax = trace::kMaxAbsTimeNs;
  constexpr TimeNs kMin = -trace::kMaxAbsTimeNs;
  Builder trace;
  const std::uint32_t main = trace.track(trace::TrackKind::kHostThread, "main", 1);
  const std::uint32_t gpu = trace.track(trace::TrackKind::kGpuStream, "stream 7", 0);
  trace.span(main, "step 0", trace::Category::kStep, kMin, kMin + 1'000'000);
  trace.span(main, "step 1", trace::Category::kStep, kMax - 1'000'000, kMax);
  trace.span(main, "cudaLaunchKernel", trace::Category::kRuntimeApi, kMax - 900'000, kMax - 899'000,
             5);
  trace.span(gpu, "gemm", trace::Category::kKernel, kMax - 800'000, kMax - 2, 5);
  trace.span(main, "aten::mm", trace::Category::kCpuOp, kMin + 10, kMin + 100);
  expect_sane(analyze_in_bounded_time(trace.builder.finalize()));

  Builder whole;
  const std::uint32_t only = whole.track(trace::TrackKind::kHostThread, "main", 1);
  whole.span(only, "everything", trace::Category::kCpuOp, kMin, kMax);
  whole.span(only, "inside", trace::Category::kCpuOp, -5, 5);
  expect_sane(analyze_in_bounded_time(whole.builder.finalize()));

  EXPECT_THROW(whole.span(only, "beyond", trace::Category::kCpuOp, kMin - 1, 0), trace::TraceError);
  EXPECT_THROW(whole.span(only, "beyond", trace::Category::kCpuOp, 0, kMax + 1), trace::TraceError);
}

TEST(HostileTraces, AMillionTracks) {
  constexpr int kTracks = 1'000'000;
  Builder trace;
  for (int t = 0; t < kTracks; ++t) {
    const std::uint32_t track =
        trace.track(trace::TrackKind::kHostThread, "thread " + std::to_string(t), t + 1);
    trace.span(track, t == 0 ? "step 0" : "work",
               t == 0 ? trace::Category::kStep : trace::Category::kCpuOp, t, t + 1000);
  }
  const trace::Trace finalized = trace.builder.finalize();
  ASSERT_EQ(finalized.tracks().size(), static_cast<std::size_t>(kTracks));
  expect_sane(analyze_in_bounded_time(finalized));
}

}  // namespace
}  // namespace tscope
