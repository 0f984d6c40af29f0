#pragma once
// The process's CUPTI activity capture: enables the record kinds tensorscope converts, lends CUPTI
// its record buffers from a bounded pool and queues the buffers CUPTI completes until the session's
// writer thread converts them. One per process, because CUPTI's callbacks are process-wide.

#include <cupti_activity.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "tscope/profiler/gpu_capture.h"
#include "tscope/trace/records.h"

namespace tscope::profiler::cupti {

class CuptiLibrary;

class CuptiActivity {
 public:
  // CUPTI's recommended buffer size; the pool bounds what capture holds when the writer falls
  // behind (CUPTI then drops records and counts them).
  static constexpr std::size_t kBufferBytes = std::size_t{4} << 20;
  static constexpr std::size_t kMaxBuffers = 32;

  static CuptiActivity& instance();

  // Records of one writer cycle: every buffer CUPTI completed since the last, in the order CUPTI
  // completed them, which is not the order it wrote their records in (see start()).
  using CycleRecords = std::span<const CUpti_Activity* const>;

  // Loads CUPTI and enables capture with the records $TSCOPE_GPU_TRACE selects; idempotent.
  // Throws GpuCaptureError saying what is missing or which selection is unknown.
  void start();
  bool running() const { return running_.load(std::memory_order_acquire); }
  // When start() succeeded (CLOCK_MONOTONIC); meaningful once running().
  trace::TimeNs started_at() const { return started_at_; }

  // The records start() enabled beyond the ones always captured.
  const GpuTraceSelection& trace_selection() const { return trace_selection_; }

  // Asks CUPTI for every buffer whose records are all complete, full or not: once per writer
  // cycle, so records reach the trace within a cycle or two rather than at exit.
  void flush_completed();
  // Hands CUPTI every buffer it holds, complete or not (records of GPU work still running lack
  // their timestamps: synchronize the devices first).
  void flush_forced();
  // Calls `convert_cycle` once with the records of every buffer completed so far, then returns the
  // buffers to the pool. Runs on one thread at a time (the session's writer).
  void drain(const std::function<void(CycleRecords)>& convert_cycle);

  // Records CUPTI dropped because it had no buffer, summed over every completed buffer's context.
  std::uint64_t dropped_records() const { return dropped_records_.load(std::memory_order_relaxed); }
  // Added to CUPTI timestamps to reach CLOCK_MONOTONIC: 0 when CUPTI takes our clock through its
  // timestamp callback, else an offset measured at start.
  std::int64_t timestamp_offset_ns() const { return timestamp_offset_ns_; }
  // Kinds that could not be enabled, with CUPTI's reason (empty when all were).
  const std::string& disabled_kinds() const { return disabled_kinds_; }
  const CuptiLibrary& library() const { return *library_; }

 private:
  struct Buffer {
    std::uint8_t* data;
    std::size_t valid_bytes;
  };

  CuptiActivity() = default;
  static void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                           std::size_t* max_records);
  static void CUPTIAPI on_buffer_completed(CUcontext context, std::uint32_t stream,
                                           std::uint8_t* buffer, std::size_t size,
                                           std::size_t valid_size);
  void enable_kinds(const GpuTraceSelection& selection);

  std::mutex mutex_;
  std::vector<std::unique_ptr<std::uint8_t[]>> buffers_;  // every buffer ever lent
  std::vector<std::uint8_t*> free_buffers_;
  std::vector<Buffer> completed_;
  std::vector<const CUpti_Activity*> cycle_records_;  // reused by drain()
  GpuTraceSelection trace_selection_;
  const CuptiLibrary* library_ = nullptr;
  std::atomic<bool> running_{false};
  std::atomic<std::uint64_t> dropped_records_{0};
  std::int64_t timestamp_offset_ns_ = 0;
  trace::TimeNs started_at_ = 0;
  std::string disabled_kinds_;
};

}  // namespace tscope::profiler::cupti
