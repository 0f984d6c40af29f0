#include "activity_converter.h"

#include <cxxabi.h>

#include <array>
#include <cstdlib>
#include <memory>

#include "callback_names.h"

namespace tscope::profiler::cupti {
namespace {

// How many calls back an external correlation is remembered; far more than CUPTI ever holds
// between a call and its GPU work, small enough to stay bounded on long runs.
constexpr std::size_t kExternalIdsKept = 1 << 16;

// GPU stream tracks sort after the process's host threads.
constexpr std::int32_t kGpuTrackSortBase = 100;

// The names Kineto gives copies and waits, so that traces of the same program compare.
std::string_view copy_kind_name(std::uint8_t kind) {
  constexpr std::array<std::string_view, 11> kNames = {
      "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind < kNames.size() ? kNames[kind] : kNames[0];
}

std::string_view memory_kind_name(std::uint32_t kind) {
  constexpr std::array<std::string_view, 8> kNames = {"Unknown",       "Pageable",      "Pinned",
                                                      "Device",        "Array",         "Managed",
                                                      "Device Static", "Managed Static"};
  return kind < kNames.size() ? kNames[kind] : kNames[0];
}

std::string_view synchronization_name(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "Context Sync";
    default:
      return "Sync";
  }
}

std::string_view overhead_name(CUpti_ActivityOverheadKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
      return "driver compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
      return "CUPTI buffer flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
      return "CUPTI instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
      return "CUPTI resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
      return "module loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
      return "lazy function loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
      return "command buffer full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
      return "CUPTI buffer request";
    default:
      return "profiler overhead";
  }
}

trace::CopyDirection copy_direction(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return trace::CopyDirection::kHostToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return trace::CopyDirection::kDeviceToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return trace::CopyDirection::kDeviceToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return trace::CopyDirection::kHostToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return trace::CopyDirection::kPeerToPeer;
    default:
      return trace::CopyDirection::kUnknown;
  }
}

trace::MemoryKind memory_kind(std::uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return trace::MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return trace::MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return trace::MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return trace::MemoryKind::kManaged;
    default:
      return trace::MemoryKind::kUnknown;
  }
}

std::string copy_name(std::uint8_t kind, std::uint32_t source, std::uint32_t destination) {
  std::string name = "Memcpy ";
  name += copy_kind_name(kind);
  name += " (";
  name += memory_kind_name(source);
  name += " -> ";
  name += memory_kind_name(destination);
  name += ")";
  return name;
}

std::uint32_t dimension(std::int32_t value) {
  return value > 0 ? static_cast<std::uint32_t>(value) : 0;
}

}  // namespace

ActivityConverter::ActivityConverter(trace::TraceSink& sink, std::uint32_t process,
                                     ConverterOptions options)
    : sink_(sink), process_(process), options_(std::move(options)) {}

void ActivityConverter::convert(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      add_kernel(reinterpret_cast<const CUpti_ActivityKernel10&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      add_copy(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      add_peer_copy(reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      add_memset(reinterpret_cast<const CUpti_ActivityMemset4&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      add_synchronization(reinterpret_cast<const CUpti_ActivitySynchronization2&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      add_call(reinterpret_cast<const CUpti_ActivityAPI&>(record), trace::Category::kRuntimeApi);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      add_call(reinterpret_cast<const CUpti_ActivityAPI&>(record), trace::Category::kDriverApi);
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      add_external_correlation(reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      add_memory(reinterpret_cast<const CUpti_ActivityMemory4&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      add_overhead(reinterpret_cast<const CUpti_ActivityOverhead3&>(record));
      break;
    default:
      break;
  }
}

void ActivityConverter::convert_cycle(std::span<const CUpti_Activity* const> records) {
  for (const CUpti_Activity* record : records) {
    if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) convert(*record);
  }
  for (const CUpti_Activity* record : records) {
    if (record->kind != CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) convert(*record);
  }
}

bool ActivityConverter::has_times(std::uint64_t start, std::uint64_t end) {
  if (start != CUPTI_TIMESTAMP_UNKNOWN && end != CUPTI_TIMESTAMP_UNKNOWN) return true;
  ++incomplete_records_;
  return false;
}

trace::TimeNs ActivityConverter::to_trace_time(std::uint64_t cupti_time) const {
  return static_cast<trace::TimeNs>(cupti_time) + options_.timestamp_offset_ns;
}

trace::SpanRecord ActivityConverter::gpu_span(std::uint64_t start, std::uint64_t end,
                                              std::uint32_t correlation, std::uint32_t device,
                                              std::uint32_t context) {
  context_devices_[context] = device;
  trace::SpanRecord span;
  span.start = to_trace_time(start);
  span.end = std::max(span.start, to_trace_time(end));
  span.correlation_id = correlation;
  if (const auto found = external_ids_.find(correlation); found != external_ids_.end()) {
    span.external_correlation_id = found->second;
  }
  return span;
}

void ActivityConverter::add_kernel(const CUpti_ActivityKernel10& kernel) {
  if (!has_times(kernel.start, kernel.end)) return;
  trace::SpanRecord span =
      gpu_span(kernel.start, kernel.end, kernel.correlationId, kernel.deviceId, kernel.contextId);
  span.name = kernel_name(kernel.name);
  span.category = trace::Category::kKernel;
  trace::KernelInfo info;
  info.grid = {dimension(kernel.gridX), dimension(kernel.gridY), dimension(kernel.gridZ)};
  info.block = {dimension(kernel.blockX), dimension(kernel.blockY), dimension(kernel.blockZ)};
  info.registers_per_thread = kernel.registersPerThread;
  info.static_shared_bytes = dimension(kernel.staticSharedMemory);
  info.dynamic_shared_bytes = dimension(kernel.dynamicSharedMemory);
  info.device = static_cast<std::int32_t>(kernel.deviceId);
  info.stream = kernel.streamId;
  span.kernel = info;
  add_span(stream_track(kernel.deviceId, kernel.streamId), span);
}

template <typename CopyRecord>
trace::SpanRecord ActivityConverter::copy_span(const CopyRecord& copy) {
  trace::SpanRecord span =
      gpu_span(copy.start, copy.end, copy.correlationId, copy.deviceId, copy.contextId);
  span.name = sink_.intern(copy_name(copy.copyKind, copy.srcKind, copy.dstKind));
  span.category = trace::Category::kMemcpy;
  span.copy = trace::CopyInfo{copy.bytes, copy_direction(copy.copyKind), memory_kind(copy.srcKind),
                              memory_kind(copy.dstKind)};
  return span;
}

void ActivityConverter::add_copy(const CUpti_ActivityMemcpy6& copy) {
  if (!has_times(copy.start, copy.end)) return;
  add_span(stream_track(copy.deviceId, copy.streamId), copy_span(copy));
}

void ActivityConverter::add_peer_copy(const CUpti_ActivityMemcpyPtoP4& copy) {
  if (!has_times(copy.start, copy.end)) return;
  trace::SpanRecord span = copy_span(copy);
  span.args = {{sink_.intern("source_device"), std::int64_t{copy.srcDeviceId}},
               {sink_.intern("destination_device"), std::int64_t{copy.dstDeviceId}}};
  add_span(stream_track(copy.deviceId, copy.streamId), span);
}

void ActivityConverter::add_memset(const CUpti_ActivityMemset4& memset) {
  if (!has_times(memset.start, memset.end)) return;
  trace::SpanRecord span =
      gpu_span(memset.start, memset.end, memset.correlationId, memset.deviceId, memset.contextId);
  span.name = sink_.intern("Memset (" + std::string(memory_kind_name(memset.memoryKind)) + ")");
  span.category = trace::Category::kMemset;
  span.copy = trace::CopyInfo{memset.bytes, trace::CopyDirection::kUnknown,
                              trace::MemoryKind::kUnknown, memory_kind(memset.memoryKind)};
  span.args = {{sink_.intern("value"), std::int64_t{memset.value}}};
  add_span(stream_track(memset.deviceId, memset.streamId), span);
}

void ActivityConverter::add_synchronization(const CUpti_ActivitySynchronization2& sync) {
  if (!has_times(sync.start, sync.end)) return;
  const auto device = context_devices_.find(sync.contextId);
  trace::SpanRecord span;
  span.start = to_trace_time(sync.start);
  span.end = std::max(span.start, to_trace_time(sync.end));
  span.correlation_id = sync.correlationId;
  span.name = sink_.intern(synchronization_name(sync.type));
  span.category = trace::Category::kSynchronization;
  if (sync.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) {
    span.args.push_back({sink_.intern("cuda_event"), std::int64_t{sync.cudaEventId}});
  }
  span.args.push_back({sink_.intern("context"), std::int64_t{sync.contextId}});
  // A context-wide wait has no stream: it gets the device's stream -1 row.
  const std::int64_t stream =
      sync.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : std::int64_t{sync.streamId};
  add_span(
      stream_track(device == context_devices_.end() ? ~std::uint32_t{0} : device->second, stream),
      span);
}

void ActivityConverter::add_call(const CUpti_ActivityAPI& call, trace::Category category) {
  if (!has_times(call.start, call.end)) return;
  trace::SpanRecord span;
  span.start = to_trace_time(call.start);
  span.end = std::max(span.start, to_trace_time(call.end));
  span.correlation_id = call.correlationId;
  if (const auto found = external_ids_.find(call.correlationId); found != external_ids_.end()) {
    span.external_correlation_id = found->second;
  }
  span.name = call_name(category == trace::Category::kDriverApi ? CUPTI_CB_DOMAIN_DRIVER_API
                                                                : CUPTI_CB_DOMAIN_RUNTIME_API,
                        call.cbid);
  span.category = category;
  if (call.returnValue != 0) {
    span.args.push_back({sink_.intern("return_value"), std::int64_t{call.returnValue}});
  }
  add_span(thread_track(call.threadId, "CUDA API"), span);
}

void ActivityConverter::add_external_correlation(
    const CUpti_ActivityExternalCorrelation& external) {
  external_ids_[external.correlationId] = external.externalId;
  if (external_ids_.size() > kExternalIdsKept) external_ids_.erase(external_ids_.begin());
}

void ActivityConverter::add_memory(const CUpti_ActivityMemory4& memory) {
  const bool allocation =
      memory.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  if (!allocation && memory.memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
    return;
  }
  if (!has_times(memory.timestamp, memory.timestamp)) return;
  std::uint64_t& total = device_bytes_allocated_[memory.deviceId];
  total = allocation ? total + memory.bytes : total - std::min(total, memory.bytes);
  trace::MemoryRecord event;
  event.time = to_trace_time(memory.timestamp);
  event.action = allocation ? trace::MemoryAction::kAlloc : trace::MemoryAction::kFree;
  event.address = memory.address;
  event.bytes = memory.bytes;
  event.device = static_cast<std::int32_t>(memory.deviceId);
  event.owner_op = memory.name != nullptr ? sink_.intern(memory.name) : trace::kEmptyString;
  event.total_allocated = total;
  event.total_reserved = total;
  sink_.add_memory_event(device_memory_track(memory.deviceId), event);
  ++events_;
}

void ActivityConverter::add_overhead(const CUpti_ActivityOverhead3& overhead) {
  if (!has_times(overhead.start, overhead.end)) return;
  trace::SpanRecord span;
  span.start = to_trace_time(overhead.start);
  span.end = std::max(span.start, to_trace_time(overhead.end));
  span.correlation_id = overhead.correlationId;
  span.name = sink_.intern(overhead_name(overhead.overheadKind));
  span.category = trace::Category::kOther;
  const std::uint32_t thread =
      overhead.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? overhead.objectId.pt.threadId : 0;
  add_span(thread_track(thread, "profiler overhead"), span);
}

std::uint32_t ActivityConverter::stream_track(std::uint32_t device, std::int64_t stream) {
  const StreamKey key{device, stream};
  if (const auto found = stream_tracks_.find(key); found != stream_tracks_.end()) {
    return found->second;
  }
  const bool known_device = device != ~std::uint32_t{0};
  trace::TrackInfo info;
  info.kind = trace::TrackKind::kGpuStream;
  info.process = process_;
  info.device = known_device ? static_cast<std::int32_t>(device) : -1;
  info.stream = stream;
  const std::string where = known_device ? "cuda:" + std::to_string(device) : "cuda";
  info.name = sink_.intern(stream < 0 ? where + " synchronization"
                                      : where + " stream " + std::to_string(stream));
  info.sort_index = kGpuTrackSortBase + info.device;
  const std::uint32_t track = sink_.add_track(info);
  stream_tracks_.emplace(key, track);
  return track;
}

std::uint32_t ActivityConverter::thread_track(std::uint32_t thread, std::string_view purpose) {
  const auto key = std::make_pair(thread, purpose);
  if (const auto found = thread_tracks_.find(key); found != thread_tracks_.end()) {
    return found->second;
  }
  trace::TrackInfo info;
  info.kind = trace::TrackKind::kHostThread;
  info.process = process_;
  info.thread_id = thread == 0 ? -1 : std::int64_t{thread};
  info.name =
      sink_.intern(thread == 0 ? std::string(purpose)
                               : std::string(purpose) + ", thread " + std::to_string(thread));
  info.sort_index = 1;
  const std::uint32_t track = sink_.add_track(info);
  thread_tracks_.emplace(key, track);
  return track;
}

std::uint32_t ActivityConverter::device_memory_track(std::uint32_t device) {
  if (const auto found = memory_tracks_.find(device); found != memory_tracks_.end()) {
    return found->second;
  }
  trace::TrackInfo info;
  info.kind = trace::TrackKind::kMemoryPool;
  info.process = process_;
  info.device = static_cast<std::int32_t>(device);
  info.name = sink_.intern("cuda:" + std::to_string(device) + " driver allocations");
  const std::uint32_t track = sink_.add_track(info);
  memory_tracks_.emplace(device, track);
  return track;
}

trace::StringId ActivityConverter::kernel_name(const char* mangled) {
  if (mangled == nullptr) return sink_.intern("unnamed kernel");
  auto [entry, inserted] = kernel_names_.try_emplace(mangled, trace::kEmptyString);
  if (inserted) {
    int status = 0;
    const std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free);
    // extern "C" kernels are not mangled and keep their name.
    entry->second = sink_.intern(status == 0 && demangled ? demangled.get() : mangled);
  }
  return entry->second;
}

trace::StringId ActivityConverter::call_name(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  auto [entry, inserted] = call_names_.try_emplace({domain, id}, trace::kEmptyString);
  if (inserted) {
    const std::string reported = options_.callback_names ? options_.callback_names(domain, id) : "";
    entry->second = sink_.intern(callback_display_name(domain, id, reported));
  }
  return entry->second;
}

void ActivityConverter::add_span(std::uint32_t track, const trace::SpanRecord& span) {
  sink_.add_span(track, span);
  ++events_;
}

}  // namespace tscope::profiler::cupti
