#include "cupti_activity.h"

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
// CUPTI and device allow, and what was refused is noted in the trace.
constexpr CUpti_ActivityKind kRequiredKind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
constexpr std::pair<CUpti_ActivityKind, const char*> kOptionalKinds[] = {
    {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "peer memcpy"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "memset"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "runtime API"},
    {CUPTI_ACTIVITY_KIND_DRIVER, "driver API"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronization"},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "overhead"},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "external correlation"},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "device memory"},
};

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
  library.check(library.activity_register_callbacks(&on_buffer_requested, &on_buffer_completed),
                "cuptiActivityRegisterCallbacks");
  library.check(library.activity_enable(kRequiredKind),
                "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)");
  enable_kinds();
  set_op_correlation_hooks(&push_op_id, &pop_op_id);
  started_at_ = monotonic_ns();
  running_.store(true, std::memory_order_release);
}

void CuptiActivity::enable_kinds() {
  for (const auto& [kind, name] : kOptionalKinds) {
    if (const CUptiResult result = library_->activity_enable(kind); result != CUPTI_SUCCESS) {
      if (!disabled_kinds_.empty()) disabled_kinds_ += "; ";
      disabled_kinds_ += std::string(name) + ": " + library_->result_text(result);
    }
  }
}

void CuptiActivity::flush() {
  if (!running()) return;
  library_->activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void CuptiActivity::drain(const std::function<void(const CUpti_Activity&)>& visit) {
  std::vector<Buffer> completed;
  {
    const std::lock_guard lock(mutex_);
    completed.swap(completed_);
  }
  for (const Buffer& buffer : completed) {
    CUpti_Activity* record = nullptr;
    while (library_->activity_get_next_record(buffer.data, buffer.valid_bytes, &record) ==
           CUPTI_SUCCESS) {
      visit(*record);
    }
  }
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
