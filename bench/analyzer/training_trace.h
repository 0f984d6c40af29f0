#pragma once
// A deterministic synthetic GPU training trace for the analyzer benchmark: per step a data wait,
// ops that each launch a kernel (runtime call, kernel and flow by correlation id), an allocation
// and a free per op, a host-to-device copy and an optimizer range; sized by event count.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tscope/trace/trace_builder.h"

namespace tscope::analyzer::bench {

inline constexpr int kOpsPerStep = 200;
// Events per op: cpu op, launch call, kernel, alloc, free.
inline constexpr std::uint64_t kEventsPerOp = 5;

inline trace::Trace synthetic_training_trace(std::uint64_t target_events) {
  using namespace tscope::trace;
  TraceBuilder builder;
  std::mt19937_64 random(7);
  const std::uint32_t process =
      builder.add_process({1, builder.intern("train"), kEmptyString, -1, 0});
  const std::uint32_t main =
      builder.add_track({TrackKind::kHostThread, builder.intern("main"), process, 1, -1, -1, 0});
  const std::uint32_t stream =
      builder.add_track({TrackKind::kGpuStream, builder.intern("stream 7"), process, -1, 0, 7, 1});
  const std::uint32_t pool = builder.add_track(
      {TrackKind::kMemoryPool, builder.intern("GPU 0 memory"), process, -1, 0, -1, 2});
  const std::vector<std::string> ops{"aten::linear",  "aten::add",        "aten::gelu",
                                     "aten::dropout", "aten::layer_norm", "aten::softmax",
                                     "aten::mm",      "aten::sum"};
  const std::vector<std::string> kernels{"sgemm_128x64_nn",
                                         "vectorized_elementwise_kernel<add>",
                                         "vectorized_elementwise_kernel<gelu>",
                                         "fused_dropout_kernel",
                                         "layer_norm_kernel",
                                         "softmax_warp_forward",
                                         "sgemm_64x64_nt",
                                         "reduce_kernel<sum>"};
  std::vector<StringId> op_names;
  std::vector<StringId> kernel_names;
  for (const auto& name : ops)
    op_names.push_back(builder.intern(name));
  for (const auto& name : kernels)
    kernel_names.push_back(builder.intern(name));
  const StringId launch_name = builder.intern("cudaLaunchKernel");
  const StringId copy_name = builder.intern("Memcpy HtoD (Pinned -> Device)");
  const StringId wait_name =
      builder.intern("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  const StringId optimizer_name = builder.intern("Optimizer.step#Adam.step");
  const StringId scope = builder.intern("forward");
  std::uniform_int_distribution<TimeNs> op_length(8'000, 40'000);
  std::uniform_int_distribution<TimeNs> kernel_length(2'000, 60'000);

  std::uint64_t events = 0;
  std::uint32_t correlation = 0;
  std::uint64_t address = 0x7f0000000000;
  TimeNs now = 1'000'000'000;
  TimeNs gpu_free_at = now;
  SpanRecord span;
  // Starts `span` afresh as a range with no detail; detail is set before it is added.
  const auto start_span = [&span](TimeNs start, TimeNs end, StringId name, Category category) {
    span = {};
    span.start = start;
    span.end = end;
    span.name = name;
    span.category = category;
  };
  for (std::uint64_t step = 0; events < target_events; ++step) {
    const TimeNs step_start = now;
    start_span(now, now + 200'000, wait_name, Category::kCpuOp);
    builder.add_span(main, span);
    now = span.end;
    start_span(now, now + 5'000, copy_name, Category::kMemcpy);
    span.copy =
        CopyInfo{1 << 20, CopyDirection::kHostToDevice, MemoryKind::kPinned, MemoryKind::kDevice};
    builder.add_span(stream, span);
    gpu_free_at = std::max(gpu_free_at, span.end);
    events += 2;
    for (int op = 0; op < kOpsPerStep && events < target_events; ++op) {
      const std::size_t kind = static_cast<std::size_t>(op) % ops.size();
      const TimeNs op_end = now + op_length(random);
      start_span(now, op_end, op_names[kind], Category::kCpuOp);
      builder.add_span(main, span);
      start_span(now + 2'000, now + 6'000, launch_name, Category::kRuntimeApi);
      span.correlation_id = ++correlation;
      builder.add_span(main, span);
      const TimeNs kernel_start = std::max(gpu_free_at + 1'000, span.end + 3'000);
      start_span(kernel_start, kernel_start + kernel_length(random), kernel_names[kind],
                 Category::kKernel);
      span.correlation_id = correlation;
      builder.add_span(stream, span);
      gpu_free_at = span.end;
      MemoryRecord memory;
      memory.time = now + 1'000;
      memory.address = address;
      memory.bytes = 4 << 20;
      memory.device = 0;
      memory.owner_op = op_names[kind];
      memory.scope = scope;
      builder.add_memory_event(pool, memory);
      memory.time = op_end;
      memory.action = MemoryAction::kFree;
      builder.add_memory_event(pool, memory);
      address += 4 << 20;
      now = op_end + 1'000;
      events += kEventsPerOp;
    }
    start_span(now, now + 300'000, optimizer_name, Category::kUserAnnotation);
    builder.add_span(main, span);
    now = std::max(span.end, gpu_free_at) + 10'000;
    start_span(step_start, now, builder.intern("ProfilerStep#" + std::to_string(step)),
               Category::kStep);
    builder.add_span(main, span);
    events += 2;
  }
  return builder.finalize();
}

}  // namespace tscope::analyzer::bench
