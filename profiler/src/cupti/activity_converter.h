#pragma once
// Turns CUPTI activity records into trace events: kernels, copies and memsets on one track per GPU
// stream, synchronization waits beside them, runtime and driver calls on one track per calling
// thread, device allocations on one memory track per device. Launches and the GPU work they
// started share a correlation id and engine ops and their kernels an external one; the trace
// draws both as flows when it is loaded.
//
// A pure function of the records it is given (no CUPTI call), so it runs and is tested on any
// machine. Runs on the session's writer thread.

#include <cupti_activity.h>

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "tscope/trace/trace_sink.h"

namespace tscope::profiler::cupti {

// The name CUPTI reports for a runtime or driver callback id; empty when it has none.
using CallbackNameSource = std::function<std::string(CUpti_CallbackDomain, CUpti_CallbackId)>;

struct ConverterOptions {
  // Added to every CUPTI timestamp; 0 when CUPTI already stamps in CLOCK_MONOTONIC nanoseconds
  // (through the timestamp callback).
  std::int64_t timestamp_offset_ns = 0;
  // Where call names come from first; the tables generated from CUPTI's headers fill the gaps.
  CallbackNameSource callback_names;
};

class ActivityConverter {
 public:
  ActivityConverter(trace::TraceSink& sink, std::uint32_t process, ConverterOptions options = {});

  // Writes one record into the sink. Kinds the capture does not enable are ignored, and so are
  // records without their timestamps (counted by incomplete_records()).
  void convert(const CUpti_Activity& record);
  // Writes the records of one writer cycle, in whatever order CUPTI's buffers brought them: the
  // cycle's external correlations are taken first, so a kernel whose buffer came before the one
  // holding its engine op id still gets the id.
  void convert_cycle(std::span<const CUpti_Activity* const> records);

  std::uint64_t events() const { return events_; }
  // Records left out because a timestamp was CUPTI_TIMESTAMP_UNKNOWN (0): work still running when
  // a forced flush returned its buffer. Written at time 0 they would stretch the trace.
  std::uint64_t incomplete_records() const { return incomplete_records_; }

 private:
  struct StreamKey {
    std::uint32_t device;
    std::int64_t stream;
    auto operator<=>(const StreamKey&) const = default;
  };

  void add_kernel(const CUpti_ActivityKernel10& kernel);
  void add_copy(const CUpti_ActivityMemcpy6& copy);
  void add_peer_copy(const CUpti_ActivityMemcpyPtoP4& copy);
  // The span of a memcpy or peer-copy record, whose fields are named alike.
  template <typename CopyRecord>
  trace::SpanRecord copy_span(const CopyRecord& copy);
  void add_memset(const CUpti_ActivityMemset4& memset);
  void add_synchronization(const CUpti_ActivitySynchronization2& sync);
  void add_call(const CUpti_ActivityAPI& call, trace::Category category);
  void add_external_correlation(const CUpti_ActivityExternalCorrelation& external);
  void add_memory(const CUpti_ActivityMemory4& memory);
  void add_overhead(const CUpti_ActivityOverhead3& overhead);

  // Fills what every GPU span shares: times, correlation ids, the device its context runs on.
  trace::SpanRecord gpu_span(std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
                             std::uint32_t device, std::uint32_t context);
  trace::TimeNs to_trace_time(std::uint64_t cupti_time) const;
  // False, and the record counted as incomplete, when either time is unknown.
  bool has_times(std::uint64_t start, std::uint64_t end);
  std::uint32_t stream_track(std::uint32_t device, std::int64_t stream);
  std::uint32_t thread_track(std::uint32_t thread, std::string_view purpose);
  std::uint32_t device_memory_track(std::uint32_t device);
  trace::StringId kernel_name(const char* mangled);
  trace::StringId call_name(CUpti_CallbackDomain domain, CUpti_CallbackId id);
  void add_span(std::uint32_t track, const trace::SpanRecord& span);

  trace::TraceSink& sink_;
  std::uint32_t process_;
  ConverterOptions options_;
  std::map<StreamKey, std::uint32_t> stream_tracks_;
  std::map<std::pair<std::uint32_t, std::string_view>, std::uint32_t> thread_tracks_;
  std::map<std::uint32_t, std::uint32_t> memory_tracks_;
  std::map<std::uint32_t, std::uint64_t> device_bytes_allocated_;
  // Synchronization records name a context, not a device; kernels and copies teach the mapping.
  std::unordered_map<std::uint32_t, std::uint32_t> context_devices_;
  std::unordered_map<std::string, trace::StringId> kernel_names_;
  std::map<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>, trace::StringId> call_names_;
  // Correlation id -> external id (the engine op), kept for the most recent calls only: the
  // external record is written when the call is made, before its GPU work has finished, so it
  // comes in the same cycle as that work (convert_cycle) or an earlier one.
  std::map<std::uint32_t, std::uint64_t> external_ids_;
  std::uint64_t events_ = 0;
  std::uint64_t incomplete_records_ = 0;
};

}  // namespace tscope::profiler::cupti
