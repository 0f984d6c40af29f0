#pragma once
// A small trace that uses every event kind and every detail field, built through the public
// builder API; the .tsc tests round-trip and cut it.

#include "tscope/trace/trace_builder.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::trace::testing {

// The hot fields of a span; tests set the optional ones by name afterwards.
inline SpanRecord span_record(TimeNs start, TimeNs end, StringId name = kEmptyString,
                              Category category = Category::kOther) {
  SpanRecord record;
  record.start = start;
  record.end = end;
  record.name = name;
  record.category = category;
  return record;
}

inline TscWriterOptions events_per_chunk(std::uint32_t count) {
  TscWriterOptions options;
  options.events_per_chunk = count;
  return options;
}

inline Trace make_sample_trace() {
  TraceBuilder builder;
  const auto s = [&](std::string_view text) { return builder.intern(text); };
  const std::uint32_t process = builder.add_process({4242, s("train.py"), s("node-7"), 3, 1});
  const std::uint32_t gpu_process = builder.add_process({0, s("GPU 0"), s("node-7"), 3, 2});
  const std::uint32_t host =
      builder.add_track({TrackKind::kHostThread, s("main thread"), process, 4243, -1, -1, 0});
  const std::uint32_t stream =
      builder.add_track({TrackKind::kGpuStream, s("stream 7"), gpu_process, -1, 0, 7, 1});
  const std::uint32_t counter =
      builder.add_track({TrackKind::kCounter, s("rss bytes"), process, -1, -1, -1, 2});
  const std::uint32_t pool =
      builder.add_track({TrackKind::kMemoryPool, s("cuda:0 caching"), gpu_process, -1, 0, -1, 3});

  // Added out of time order on purpose: the builder sorts.
  SpanRecord launch = span_record(1'200, 1'300, s("cudaLaunchKernel"), Category::kRuntimeApi);
  launch.correlation_id = 77;
  const EventRef launch_ref = builder.add_span(host, launch);
  const SpanRecord step = span_record(1'000, 9'000, s("step 0"), Category::kStep);
  builder.add_span(host, step);
  SpanRecord matmul = span_record(1'100, 2'000, s("matmul"), Category::kCpuOp);
  matmul.external_correlation_id = 5;
  matmul.op = OpInfo{{{64, 128}, {128, 10}}, 163'840, 36'864, 2'560, {11, 12}, {13}};
  matmul.args = {
      {s("engine"), std::int64_t{-3}}, {s("alpha"), 0.5}, {s("layout"), StringArg{s("row")}}};
  builder.add_span(host, matmul);

  SpanRecord kernel = span_record(1'400, 1'900, s("sgemm_128x64"), Category::kKernel);
  kernel.correlation_id = 77;
  kernel.external_correlation_id = 5;
  kernel.kernel = KernelInfo{{4, 2, 1}, {256, 1, 1}, 96, 8192, 1024, 0, 7};
  const EventRef kernel_ref = builder.add_span(stream, kernel);
  SpanRecord copy = span_record(2'100, 2'600, s("Memcpy HtoD"), Category::kMemcpy);
  copy.copy =
      CopyInfo{1 << 20, CopyDirection::kHostToDevice, MemoryKind::kPageable, MemoryKind::kDevice};
  builder.add_span(stream, copy);

  builder.add_instant(
      host, {5'000, s("OOM"), Category::kOther, {{s("requested"), std::int64_t{1 << 30}}}});
  builder.add_instant(host, {3'000, s("mark"), Category::kUserAnnotation, {}});
  builder.add_counter_sample(counter, 2'000, 1.5e9);
  builder.add_counter_sample(counter, 1'000, 1.25e9);
  builder.add_memory_event(pool, {1'150, MemoryAction::kAlloc, 0x7f0000001000, 4096, 0, s("matmul"),
                                  s("forward"), 4096, 2 << 20});
  builder.add_memory_event(pool, {8'000, MemoryAction::kFree, 0x7f0000001000, 4096, 0, s("matmul"),
                                  s("forward"), 0, 2 << 20});
  builder.add_flow({FlowKind::kOther, 99, launch_ref, kernel_ref});
  builder.add_dropped_events(17);
  builder.set_metadata_value("cuda_version", "12.4");
  builder.set_metadata_value("device.0.name", "NVIDIA H200");
  builder.metadata().source_format = "test";
  return builder.finalize();
}

}  // namespace tscope::trace::testing
