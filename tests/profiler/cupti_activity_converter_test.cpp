// CUPTI records, built from the structs of cupti_activity.h as CUPTI fills them, become the trace's
// kernels, copies, memsets, waits, calls and device allocations; launches and ops are joined to
// their GPU work through correlation ids. Runs on the CPU: the conversion makes no CUPTI call.

#include <cupti_activity.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "cupti/activity_converter.h"
#include "cupti/callback_names.h"
#include "trace_queries.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::profiler::cupti {
namespace {

using testing::span_arg;
using testing::spans_named;
using testing::track_name;

constexpr std::uint32_t kDevice = 1;
constexpr std::uint32_t kContext = 3;
constexpr std::uint32_t kStream = 7;

template <typename Record>
const CUpti_Activity& as_activity(const Record& record) {
  return reinterpret_cast<const CUpti_Activity&>(record);
}

// A record of `kind` from `start` to `end`, every other field zero.
template <typename Record>
Record timed_record(CUpti_ActivityKind kind, std::uint64_t start, std::uint64_t end) {
  Record record{};
  record.kind = kind;
  record.start = start;
  record.end = end;
  return record;
}

// `record` as GPU work on the test's device, context and stream, joined to its launch by
// `correlation`.
template <typename Record>
Record on_test_stream(Record record, std::uint32_t correlation) {
  record.deviceId = kDevice;
  record.contextId = kContext;
  record.streamId = kStream;
  record.correlationId = correlation;
  return record;
}

CUpti_ActivityKernel10 kernel_record(const char* name, std::uint64_t start, std::uint64_t end,
                                     std::uint32_t correlation) {
  auto kernel = on_test_stream(
      timed_record<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, start, end),
      correlation);
  kernel.name = name;
  kernel.gridX = 128;
  kernel.gridY = 2;
  kernel.gridZ = 1;
  kernel.blockX = 256;
  kernel.blockY = 1;
  kernel.blockZ = 1;
  kernel.registersPerThread = 32;
  kernel.staticSharedMemory = 4096;
  kernel.dynamicSharedMemory = 1024;
  return kernel;
}

CUpti_ActivityExternalCorrelation external_record(std::uint64_t op, std::uint32_t correlation) {
  CUpti_ActivityExternalCorrelation external{};
  external.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  external.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  external.externalId = op;
  external.correlationId = correlation;
  return external;
}

CUpti_ActivityAPI call_record(CUpti_ActivityKind kind, CUpti_CallbackId id, std::uint64_t start,
                              std::uint64_t end, std::uint32_t correlation) {
  auto call = timed_record<CUpti_ActivityAPI>(kind, start, end);
  call.cbid = id;
  call.processId = 100;
  call.threadId = 101;
  call.correlationId = correlation;
  return call;
}

// A copy between memory kinds; the record's kind follows its struct (peer copies have their own).
template <typename Copy = CUpti_ActivityMemcpy6>
Copy copy_record(CUpti_ActivityMemcpyKind direction, CUpti_ActivityMemoryKind source,
                 CUpti_ActivityMemoryKind destination, std::uint64_t start, std::uint64_t end) {
  auto copy = timed_record<Copy>(std::is_same_v<Copy, CUpti_ActivityMemcpyPtoP4>
                                     ? CUPTI_ACTIVITY_KIND_MEMCPY2
                                     : CUPTI_ACTIVITY_KIND_MEMCPY,
                                 start, end);
  copy.copyKind = direction;
  copy.srcKind = source;
  copy.dstKind = destination;
  return copy;
}

CUpti_ActivitySynchronization2 sync_record(CUpti_ActivitySynchronizationType type,
                                           std::uint32_t stream, std::uint32_t event,
                                           std::uint64_t start, std::uint64_t end) {
  auto sync =
      timed_record<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, start, end);
  sync.type = type;
  sync.contextId = kContext;
  sync.streamId = stream;
  sync.cudaEventId = event;
  return sync;
}

CUpti_ActivityMemory4 allocation_record(std::uint64_t bytes) {
  CUpti_ActivityMemory4 allocation{};
  allocation.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  allocation.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  allocation.bytes = bytes;
  return allocation;
}

class ActivityConverterTest : public ::testing::Test {
 protected:
  ActivityConverterTest() {
    trace::Process process;
    process.pid = 100;
    process_ = builder_.add_process(process);
  }

  ActivityConverter& converter(ConverterOptions options = {}) {
    if (!converter_) converter_.emplace(builder_, process_, std::move(options));
    return *converter_;
  }

  trace::Trace finish() { return builder_.finalize(); }

  // Converts the records in their order and finishes the trace.
  template <typename... Records>
  trace::Trace convert(const Records&... records) {
    (converter().convert(as_activity(records)), ...);
    return finish();
  }

  trace::TraceBuilder builder_;
  std::uint32_t process_ = 0;
  std::optional<ActivityConverter> converter_;
};

TEST_F(ActivityConverterTest, KernelBecomesASpanOnItsStreamWithDemangledNameAndLaunchGeometry) {
  const trace::Trace converted = convert(kernel_record("_Z6matmulPKfS0_Pfi", 1000, 5000, 9));

  const auto spans = spans_named(converted, "matmul(float const*, float const*, float*, int)");
  ASSERT_EQ(spans.size(), 1u);
  const trace::SpanRecord span = converted.span_record(spans[0].track, spans[0].index);
  EXPECT_EQ(span.category, trace::Category::kKernel);
  EXPECT_EQ(span.start, 1000);
  EXPECT_EQ(span.end, 5000);
  EXPECT_EQ(span.correlation_id, 9u);
  ASSERT_TRUE(span.kernel.has_value());
  EXPECT_EQ(span.kernel->grid, (std::array<std::uint32_t, 3>{128, 2, 1}));
  EXPECT_EQ(span.kernel->block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(span.kernel->registers_per_thread, 32u);
  EXPECT_EQ(span.kernel->static_shared_bytes, 4096u);
  EXPECT_EQ(span.kernel->dynamic_shared_bytes, 1024u);
  EXPECT_EQ(span.kernel->device, 1);
  EXPECT_EQ(span.kernel->stream, 7);
  const trace::TrackInfo& track = converted.track(spans[0].track).info();
  EXPECT_EQ(track.kind, trace::TrackKind::kGpuStream);
  EXPECT_EQ(track.device, 1);
  EXPECT_EQ(track.stream, 7);
  EXPECT_EQ(track_name(converted, spans[0].track), "cuda:1 stream 7");
}

TEST_F(ActivityConverterTest, ExternCKernelKeepsItsName) {
  converter().convert(as_activity(kernel_record("saxpy_kernel", 10, 20, 1)));
  EXPECT_EQ(spans_named(finish(), "saxpy_kernel").size(), 1u);
}

TEST_F(ActivityConverterTest, KernelsOfOneStreamShareATrackAndOtherStreamsGetTheirOwn) {
  CUpti_ActivityKernel10 other_stream = kernel_record("k", 30, 40, 3);
  other_stream.streamId = kStream + 1;
  const trace::Trace converted =
      convert(kernel_record("k", 10, 20, 1), kernel_record("k", 20, 30, 2), other_stream);
  ASSERT_EQ(converted.tracks().size(), 2u);
  EXPECT_EQ(converted.track(0).spans().size(), 2u);
  EXPECT_EQ(converted.track(1).spans().size(), 1u);
}

TEST_F(ActivityConverterTest, CopyCarriesBytesDirectionAndMemoryKinds) {
  CUpti_ActivityMemcpy6 copy = on_test_stream(
      copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                  CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 100, 900),
      4);
  copy.bytes = 1 << 20;
  const trace::Trace converted = convert(copy);

  const auto spans = spans_named(converted, "Memcpy HtoD (Pageable -> Device)");
  ASSERT_EQ(spans.size(), 1u);
  const trace::SpanRecord span = converted.span_record(spans[0].track, spans[0].index);
  EXPECT_EQ(span.category, trace::Category::kMemcpy);
  EXPECT_EQ(span.correlation_id, 4u);
  ASSERT_TRUE(span.copy.has_value());
  EXPECT_EQ(span.copy->bytes, 1u << 20);
  EXPECT_EQ(span.copy->direction, trace::CopyDirection::kHostToDevice);
  EXPECT_EQ(span.copy->source, trace::MemoryKind::kPageable);
  EXPECT_EQ(span.copy->destination, trace::MemoryKind::kDevice);
}

TEST_F(ActivityConverterTest, PinnedAndManagedMemoryKindsAreKept) {
  CUpti_ActivityMemcpy6 copy =
      copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED,
                  CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 100, 200);
  copy.deviceId = kDevice;
  const trace::Trace converted = convert(copy);
  const auto spans = spans_named(converted, "Memcpy DtoH (Managed -> Pinned)");
  ASSERT_EQ(spans.size(), 1u);
  const trace::SpanRecord span = converted.span_record(spans[0].track, spans[0].index);
  EXPECT_EQ(span.copy->direction, trace::CopyDirection::kDeviceToHost);
  EXPECT_EQ(span.copy->source, trace::MemoryKind::kManaged);
  EXPECT_EQ(span.copy->destination, trace::MemoryKind::kPinned);
}

TEST_F(ActivityConverterTest, PeerCopyIsPeerToPeerAndNamesBothDevices) {
  auto copy = copy_record<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP,
                                                     CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                                                     CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 100, 200);
  copy.bytes = 4096;
  copy.deviceId = 0;
  copy.srcDeviceId = 0;
  copy.dstDeviceId = 1;
  const trace::Trace converted = convert(copy);
  const auto spans = spans_named(converted, "Memcpy PtoP (Device -> Device)");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(converted.span_record(spans[0].track, spans[0].index).copy->direction,
            trace::CopyDirection::kPeerToPeer);
  EXPECT_EQ(span_arg(converted, spans[0], "source_device"), "0");
  EXPECT_EQ(span_arg(converted, spans[0], "destination_device"), "1");
}

TEST_F(ActivityConverterTest, MemsetCarriesBytesValueAndMemoryKind) {
  auto memset =
      on_test_stream(timed_record<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET, 50, 60), 5);
  memset.value = 0;
  memset.bytes = 65536;
  memset.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  const trace::Trace converted = convert(memset);
  const auto spans = spans_named(converted, "Memset (Device)");
  ASSERT_EQ(spans.size(), 1u);
  const trace::SpanRecord span = converted.span_record(spans[0].track, spans[0].index);
  EXPECT_EQ(span.category, trace::Category::kMemset);
  EXPECT_EQ(span.copy->bytes, 65536u);
  EXPECT_EQ(span.copy->destination, trace::MemoryKind::kDevice);
  EXPECT_EQ(span_arg(converted, spans[0], "value"), "0");
}

TEST_F(ActivityConverterTest, StreamSynchronizationLandsOnTheStreamOfItsContextsDevice) {
  CUpti_ActivitySynchronization2 sync =
      sync_record(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, kStream,
                  CUPTI_SYNCHRONIZATION_INVALID_VALUE, 200, 700);
  sync.correlationId = 8;
  const trace::Trace converted = convert(kernel_record("k", 10, 20, 1), sync);
  const auto spans = spans_named(converted, "Stream Sync");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(converted.track(spans[0].track).spans().category[spans[0].index],
            trace::Category::kSynchronization);
  EXPECT_EQ(track_name(converted, spans[0].track), "cuda:1 stream 7");
  EXPECT_EQ(span_arg(converted, spans[0], "cuda_event"), "");
}

TEST_F(ActivityConverterTest, EventSynchronizationNamesItsEvent) {
  const trace::Trace converted =
      convert(sync_record(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE,
                          CUPTI_SYNCHRONIZATION_INVALID_VALUE, 12, 100, 200));
  const auto spans = spans_named(converted, "Event Sync");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(span_arg(converted, spans[0], "cuda_event"), "12");
  EXPECT_EQ(converted.track(spans[0].track).info().stream, -1);
}

TEST_F(ActivityConverterTest, RuntimeCallIsNamedFromItsCallbackIdWithoutTheReleaseTag) {
  const trace::Trace converted = convert(call_record(
      CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 10, 30, 9));
  const auto spans = spans_named(converted, "cudaLaunchKernel");
  ASSERT_EQ(spans.size(), 1u);
  const trace::SpanRecord span = converted.span_record(spans[0].track, spans[0].index);
  EXPECT_EQ(span.category, trace::Category::kRuntimeApi);
  EXPECT_EQ(span.correlation_id, 9u);
  const trace::TrackInfo& track = converted.track(spans[0].track).info();
  EXPECT_EQ(track.kind, trace::TrackKind::kHostThread);
  EXPECT_EQ(track.thread_id, 101);
}

TEST_F(ActivityConverterTest, DriverCallKeepsItsSymbolVersion) {
  const trace::Trace converted = convert(
      call_record(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, 10, 30, 2));
  const auto spans = spans_named(converted, "cuMemcpyHtoD_v2");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(converted.track(spans[0].track).spans().category[spans[0].index],
            trace::Category::kDriverApi);
}

TEST_F(ActivityConverterTest, NameReportedByCuptiIsPreferredToTheGeneratedTable) {
  ConverterOptions options;
  options.callback_names = [](CUpti_CallbackDomain, CUpti_CallbackId) {
    return std::string("cudaLaunchKernel_v7000");
  };
  converter(std::move(options))
      .convert(as_activity(call_record(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 10, 30, 9)));
  EXPECT_EQ(spans_named(finish(), "cudaLaunchKernel").size(), 1u);
}

TEST_F(ActivityConverterTest, CallUnknownToTheTablesGetsANumberedName) {
  converter().convert(as_activity(call_record(CUPTI_ACTIVITY_KIND_RUNTIME, 99999, 10, 30, 9)));
  EXPECT_EQ(spans_named(finish(), "runtime call 99999").size(), 1u);
}

TEST_F(ActivityConverterTest, FailedCallKeepsItsReturnValue) {
  CUpti_ActivityAPI call = call_record(CUPTI_ACTIVITY_KIND_RUNTIME,
                                       CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 10, 30, 9);
  call.returnValue = 2;
  const trace::Trace converted = convert(call);
  const auto spans = spans_named(converted, "cudaMalloc");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(span_arg(converted, spans[0], "return_value"), "2");
}

TEST_F(ActivityConverterTest, LaunchIsJoinedToItsKernelByCorrelationId) {
  const trace::Trace converted =
      convert(call_record(CUPTI_ACTIVITY_KIND_RUNTIME,
                          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 10, 30, 9),
              kernel_record("k", 40, 90, 9), kernel_record("other", 100, 120, 10));
  ASSERT_EQ(converted.flows().size(), 1u);
  const trace::Flow& flow = converted.flows()[0];
  EXPECT_EQ(flow.kind, trace::FlowKind::kLaunchToKernel);
  EXPECT_EQ(flow.id, 9u);
  EXPECT_EQ(converted.string(converted.track(flow.to.track).spans().name[flow.to.index]), "k");
}

TEST_F(ActivityConverterTest, EngineOpIsJoinedToItsKernelsByExternalCorrelation) {
  trace::TrackInfo thread;
  thread.process = process_;
  thread.thread_id = 101;
  const std::uint32_t host = builder_.add_track(thread);
  trace::SpanRecord op;
  op.start = 0;
  op.end = 200;
  op.name = builder_.intern("matmul");
  op.category = trace::Category::kCpuOp;
  op.external_correlation_id = 42;
  builder_.add_span(host, op);

  const trace::Trace converted = convert(external_record(42, 9), kernel_record("k", 40, 90, 9));

  const auto kernels = spans_named(converted, "k");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(converted.span_record(kernels[0].track, kernels[0].index).external_correlation_id, 42u);
  ASSERT_EQ(converted.flows().size(), 1u);
  EXPECT_EQ(converted.flows()[0].kind, trace::FlowKind::kOpToKernel);
  EXPECT_EQ(converted.flows()[0].from.track, host);
}

// Per-thread buffers (CUDA 13's default, which capture keeps) complete in no fixed order: the
// buffer with a launch's kernel can come before the one with the op id pushed around the launch.
TEST_F(ActivityConverterTest, KernelOfAnEarlierBufferOfTheCycleGetsTheOpIdOfALaterBuffer) {
  const CUpti_ActivityKernel10 first_buffer[] = {kernel_record("gemm", 40, 90, 9),
                                                 kernel_record("relu", 95, 99, 10)};
  const CUpti_ActivityAPI launch = call_record(
      CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 30, 35, 9);
  const CUpti_ActivityExternalCorrelation second_buffer[] = {external_record(42, 9),
                                                             external_record(43, 10)};
  const CUpti_Activity* cycle[] = {&as_activity(first_buffer[0]), &as_activity(first_buffer[1]),
                                   &as_activity(launch), &as_activity(second_buffer[0]),
                                   &as_activity(second_buffer[1])};
  converter().convert_cycle(cycle);
  const trace::Trace converted = finish();

  const auto gemm = spans_named(converted, "gemm");
  const auto relu = spans_named(converted, "relu");
  const auto calls = spans_named(converted, "cudaLaunchKernel");
  ASSERT_EQ(gemm.size(), 1u);
  ASSERT_EQ(relu.size(), 1u);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(converted.span_record(gemm[0].track, gemm[0].index).external_correlation_id, 42u);
  EXPECT_EQ(converted.span_record(relu[0].track, relu[0].index).external_correlation_id, 43u);
  EXPECT_EQ(converted.span_record(calls[0].track, calls[0].index).external_correlation_id, 42u);
}

TEST_F(ActivityConverterTest, OpIdOfAnEarlierCycleStillReachesItsKernel) {
  const CUpti_ActivityExternalCorrelation external = external_record(42, 9);
  const CUpti_Activity* earlier_cycle[] = {&as_activity(external)};
  converter().convert_cycle(earlier_cycle);
  const CUpti_ActivityKernel10 kernel = kernel_record("gemm", 40, 90, 9);
  const CUpti_Activity* later_cycle[] = {&as_activity(kernel)};
  converter().convert_cycle(later_cycle);
  const trace::Trace converted = finish();

  const auto gemm = spans_named(converted, "gemm");
  ASSERT_EQ(gemm.size(), 1u);
  EXPECT_EQ(converted.span_record(gemm[0].track, gemm[0].index).external_correlation_id, 42u);
}

// A forced flush returns the records of work still running with CUPTI_TIMESTAMP_UNKNOWN (0).
TEST_F(ActivityConverterTest, RecordsWithoutTimestampsAreLeftOutAndCounted) {
  const CUpti_ActivityMemcpy6 copy =
      copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN,
                  CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN, 500, CUPTI_TIMESTAMP_UNKNOWN);
  converter().convert(as_activity(kernel_record("unfinished", 100, CUPTI_TIMESTAMP_UNKNOWN, 1)));
  converter().convert(as_activity(kernel_record("unstarted", CUPTI_TIMESTAMP_UNKNOWN, 0, 2)));
  converter().convert(as_activity(copy));
  converter().convert(as_activity(allocation_record(1000)));
  converter().convert(as_activity(call_record(CUPTI_ACTIVITY_KIND_RUNTIME,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                              CUPTI_TIMESTAMP_UNKNOWN, 20, 3)));
  converter().convert(as_activity(kernel_record("finished", 100, 200, 4)));
  EXPECT_EQ(converter().incomplete_records(), 5u);
  EXPECT_EQ(converter().events(), 1u);
  const trace::Trace converted = finish();

  EXPECT_EQ(converted.counts().spans, 1u);
  EXPECT_EQ(converted.counts().memory_events, 0u);
  EXPECT_EQ(spans_named(converted, "finished").size(), 1u);
}

TEST_F(ActivityConverterTest, DeviceAllocationsBecomeMemoryEventsWithTheDevicesRunningTotal) {
  CUpti_ActivityMemory4 allocation = allocation_record(1000);
  allocation.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  allocation.address = 0x7000;
  allocation.timestamp = 10;
  allocation.deviceId = kDevice;
  CUpti_ActivityMemory4 second = allocation;
  second.address = 0x9000;
  second.bytes = 500;
  second.timestamp = 20;
  CUpti_ActivityMemory4 release = allocation;
  release.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  release.timestamp = 30;
  for (const auto* record : {&allocation, &second, &release})
    converter().convert(as_activity(*record));
  const trace::Trace converted = finish();

  ASSERT_EQ(converted.tracks().size(), 1u);
  const trace::Track& track = converted.track(0);
  EXPECT_EQ(track.info().kind, trace::TrackKind::kMemoryPool);
  EXPECT_EQ(track.info().device, 1);
  ASSERT_EQ(track.memory().size(), 3u);
  EXPECT_EQ(track.memory().action(2), trace::MemoryAction::kFree);
  EXPECT_EQ(track.memory().address[2], 0x7000u);
  EXPECT_EQ(track.memory().total_allocated[0], 1000u);
  EXPECT_EQ(track.memory().total_allocated[1], 1500u);
  EXPECT_EQ(track.memory().total_allocated[2], 500u);
}

TEST_F(ActivityConverterTest, TimestampOffsetMovesCuptiTimesIntoTheHostClock) {
  ConverterOptions options;
  options.timestamp_offset_ns = 1'000'000;
  converter(std::move(options)).convert(as_activity(kernel_record("k", 10, 20, 1)));
  const trace::Trace converted = finish();
  EXPECT_EQ(converted.track(0).spans().start[0], 1'000'010);
  EXPECT_EQ(converted.track(0).spans().end(0), 1'000'020);
}

TEST_F(ActivityConverterTest, KindsCaptureDoesNotEnableAreIgnored) {
  CUpti_ActivityKernel10 record = kernel_record("k", 10, 20, 1);
  record.kind = CUPTI_ACTIVITY_KIND_MARKER;
  converter().convert(as_activity(record));
  EXPECT_EQ(converter().events(), 0u);
  EXPECT_TRUE(finish().tracks().empty());
}

TEST(CallbackNames, ReleaseTagsAreRemovedAndSymbolVersionsKept) {
  EXPECT_EQ(without_release_tag("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(without_release_tag("cudaMemcpy_ptds_v7000"), "cudaMemcpy_ptds");
  EXPECT_EQ(without_release_tag("cudaLaunchKernelExC_v11060"), "cudaLaunchKernelExC");
  EXPECT_EQ(without_release_tag("cuMemAlloc_v2"), "cuMemAlloc_v2");
  EXPECT_EQ(without_release_tag("cuInit"), "cuInit");
}

TEST(CallbackNames, GeneratedTablesCoverBothDomains) {
  EXPECT_EQ(generated_callback_name(CUPTI_CB_DOMAIN_RUNTIME_API,
                                    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020),
            "cudaStreamSynchronize_v3020");
  EXPECT_EQ(
      generated_callback_name(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel),
      "cuLaunchKernel");
  EXPECT_EQ(generated_callback_name(CUPTI_CB_DOMAIN_NVTX, 1), "");
}

}  // namespace
}  // namespace tscope::profiler::cupti
