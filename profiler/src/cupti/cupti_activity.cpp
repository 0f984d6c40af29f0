#include "cupti_activity.h"

#include <cstdlib>
#include <string_view>
#include <utility>

#include "cupti_library.h"
#include "op_correlation.h"
#include "runtime_library.h"
#include "tscope/profiler/clock.h"
#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler::cupti {
namespace {

// CUPTI stamps records with this once registered, so GPU times land in the trace's clock domain
// without a conversion that could drift.
std::uint64_t CUPTIAPI monotonic_timestamp() {
  return static_cast<std::uint64_t>(monotonic_ns());
}

// Kernels are what capture is for: without them it does not start. The rest are enabled when this
// CUPTI and device allow (and, for the per-call ones, when the run selects them), and what was
// refused is noted in the trace.
constexpr CUpti_ActivityKind kRequiredKind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
struct OptionalKind {
  CUpti_ActivityKind kind;
  const char* name;
  bool GpuTraceSelection::*selected_by;  // nullptr: always enabled
};
constexpr OptionalKind kOptionalKinds[] = {
    {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy", nullptr},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "peer memcpy", nullptr},
    {CUPTI_ACTIVITY_KIND_MEMSET, "memset", nullptr},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "runtime API", &GpuTraceSelection::runtime},
    {CUPTI_ACTIVITY_KIND_DRIVER, "driver API", &GpuTraceSelection::driver},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronization", &GpuTraceSelection::synchronization},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "overhead", &GpuTraceSelection::overhead},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "external correlation", nullptr},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "device memory", nullptr},
};

GpuTraceSelection selection_from_environment() {
  const char* listed = std::getenv(kGpuTraceVariable.data());
  return parse_gpu_trace(listed != nullptr ? std::string_view(listed) : kDefaultGpuTrace);
}

// The engine's op ids reach CUPTI on the calling thread's correlation stack (op_correlation.h).
void push_op_id(std::uint64_t id) {
  CuptiLibrary::instance().push_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                        id);
}

void pop_op_id() {
  std::uint64_t popped = 0;
  CuptiLibrary::instance().pop_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                       &popped);
}

}  // namespace

CuptiActivity& CuptiActivity::instance() {
  // Never destroyed: CUPTI may complete buffers while static objects are torn down at exit.
  static CuptiActivity* const activity = new CuptiActivity();
  return *activity;
}

void CuptiActivity::start() {
  static std::mutex start_mutex;
  const std::lock_guard lock(start_mutex);
  if (running()) return;
  // Without a driver CUPTI only answers CUPTI_ERROR_UNKNOWN; name the actual cause instead.
  try {
    static const RuntimeLibrary driver({"libcuda.so.1"});
  } catch (const GpuCaptureError& error) {
    throw GpuCaptureError(std::string("no NVIDIA driver (") + error.what() +
                          "); GPU capture needs a machine with the driver and a GPU");
  }
  const GpuTraceSelection selection = selection_from_environment();
  const CuptiLibrary& library = CuptiLibrary::instance();
  library_ = &library;
  // Thread ids as the kernel numbers them, the ids of the trace's host thread tracks.
  library.check(library.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
                "cuptiSetThreadIdType");
  if (library.activity_register_timestamp_callback != nullptr) {
    library.check(library.activity_register_timestamp_callback(&monotonic_timestamp),
                  "cuptiActivityRegisterTimestampCallback");
  } else {
    std::uint64_t cupti_now = 0;
    library.check(library.get_timestamp(&cupti_now), "cuptiGetTimestamp");
    timestamp_offset_ns_ = monotonic_ns() - static_cast<std::int64_t>(cupti_now);
  }
  // Set, not left to the release's default (1 in CUDA 13), and before the callbacks and kinds
  // as the header requires: one buffer per launching thread spares the launch path a shared lock,
  // the cheaper choice for the overhead target. Such buffers complete in no fixed order, so the
  // converter joins a cycle's external correlations to its GPU records whatever their order.
  std::uint8_t per_thread_buffers = 1;
  std::size_t attribute_size = sizeof per_thread_buffers;
  library.check(library.activity_set_attribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER,
                                               &attribute_size, &per_thread_buffers),
                "cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER)");
  library.check(library.activity_register_callbacks(&on_buffer_requested, &on_buffer_completed),
                "cuptiActivityRegisterCallbacks");
  library.check(library.activity_enable(kRequiredKind),
                "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)");
  enable_kinds(selection);
  trace_selection_ = selection;
  set_op_correlation_hooks(&push_op_id, &pop_op_id);
  started_at_ = monotonic_ns();
  running_.store(true, std::memory_order_release);
}

void CuptiActivity::enable_kinds(const GpuTraceSelection& selection) {
  for (const OptionalKind& optional : kOptionalKinds) {
    if (optional.selected_by != nullptr && !(selection.*optional.selected_by)) continue;
    if (const CUptiResult result = library_->activity_enable(optional.kind);
        result != CUPTI_SUCCESS) {
      if (!disabled_kinds_.empty()) disabled_kinds_ += "; ";
      disabled_kinds_ += std::string(optional.name) + ": " + library_->result_text(result);
    }
  }
}

void CuptiActivity::flush_completed() {
  if (!running()) return;
  library_->activity_flush_all(0);
}

void CuptiActivity::flush_forced() {
  if (!running()) return;
  library_->activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void CuptiActivity::drain(const std::function<void(CycleRecords)>& convert_cycle) {
  std::vector<Buffer> completed;
  {
    const std::lock_guard lock(mutex_);
    completed.swap(completed_);
  }
  cycle_records_.clear();
  for (const Buffer& buffer : completed) {
    CUpti_Activity* record = nullptr;
    while (library_->activity_get_next_record(buffer.data, buffer.valid_bytes, &record) ==
           CUPTI_SUCCESS) {
      cycle_records_.push_back(record);
    }
  }
  if (!cycle_records_.empty()) convert_cycle(cycle_records_);
  const std::lock_guard lock(mutex_);
  for (const Buffer& buffer : completed)
    free_buffers_.push_back(buffer.data);
}

void CUPTIAPI CuptiActivity::on_buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                                 std::size_t* max_records) {
  CuptiActivity& activity = instance();
  const std::lock_guard lock(activity.mutex_);
  *max_records = 0;
  if (activity.free_buffers_.empty() && activity.buffers_.size() < kMaxBuffers) {
    activity.buffers_.push_back(std::make_unique_for_overwrite<std::uint8_t[]>(kBufferBytes));
    activity.free_buffers_.push_back(activity.buffers_.back().get());
  }
  if (activity.free_buffers_.empty()) {
    // Every buffer waits for the writer: CUPTI drops what does not fit and counts it.
    *buffer = nullptr;
    *size = 0;
    return;
  }
  *buffer = activity.free_buffers_.back();
  activity.free_buffers_.pop_back();
  *size = kBufferBytes;
}

void CUPTIAPI CuptiActivity::on_buffer_completed(CUcontext context, std::uint32_t stream,
                                                 std::uint8_t* buffer, std::size_t /*size*/,
                                                 std::size_t valid_size) {
  CuptiActivity& activity = instance();
  std::size_t dropped = 0;
  if (activity.library_->activity_get_num_dropped_records(context, stream, &dropped) ==
      CUPTI_SUCCESS) {
    activity.dropped_records_.fetch_add(dropped, std::memory_order_relaxed);
  }
  if (buffer == nullptr) return;
  const std::lock_guard lock(activity.mutex_);
  if (valid_size == 0) {
    activity.free_buffers_.push_back(buffer);
  } else {
    activity.completed_.push_back({buffer, valid_size});
  }
}

}  // namespace tscope::profiler::cupti
