#include "gpu_session_writer.h"

#include <map>
#include <optional>
#include <string>

#include "activity_converter.h"
#include "cupti_activity.h"
#include "cupti_library.h"
#include "device_properties.h"
#include "device_synchronization.h"
#include "nvml_sampler.h"
#include "tscope/profiler/clock.h"
#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler {
namespace {

// Counter track names, one set per device.
constexpr const char* kUtilizationCounter = "utilization (%)";
constexpr const char* kMemoryUsedCounter = "memory used (bytes)";
constexpr const char* kSmClockCounter = "SM clock (MHz)";
constexpr const char* kPowerCounter = "power (W)";

}  // namespace

struct GpuSessionWriter::State {
  State(trace::TraceSink& trace_sink, std::uint32_t trace_process)
      : sink(trace_sink), process(trace_process), session_start(monotonic_ns()) {}

  // Called once GPU capture runs. Capture that started before this session (for an earlier one)
  // may have completed buffers and dropped records that are not this session's; capture started
  // during it (when the program initialised CUDA) has only this session's.
  void attach() {
    cupti::CuptiActivity& activity = cupti::CuptiActivity::instance();
    if (activity.started_at() < session_start) {
      activity.drain([](cupti::CuptiActivity::CycleRecords) {});
      dropped_at_start = activity.dropped_records();
    }
    const cupti::CuptiLibrary& library = activity.library();
    converter.emplace(
        sink, process,
        cupti::ConverterOptions{
            .timestamp_offset_ns = activity.timestamp_offset_ns(),
            .callback_names = [&library](CUpti_CallbackDomain domain, CUpti_CallbackId id) {
              return library.callback_name(domain, id);
            }});
    sink.set_metadata_value("gpu_capture", "cupti");
    sink.set_metadata_value("cupti_trace", gpu_trace_text(activity.trace_selection()));
    if (!activity.disabled_kinds().empty()) {
      sink.set_metadata_value("cupti_disabled_kinds", activity.disabled_kinds());
    }
    // What the analyzer's roofline looks the device up by; a trace without it still loads.
    try {
      cupti::write_device_metadata(cupti::read_device_properties(), sink);
    } catch (const GpuCaptureError& error) {
      sink.set_metadata_value("device_properties", std::string("unavailable: ") + error.what());
    }
    try {
      nvml.emplace();
      sink.set_metadata_value("gpu_counters", "nvml");
    } catch (const GpuCaptureError& error) {
      sink.set_metadata_value("gpu_counters", std::string("unavailable: ") + error.what());
    }
  }

  void convert_completed() {
    cupti::CuptiActivity::instance().drain(
        [this](cupti::CuptiActivity::CycleRecords records) { converter->convert_cycle(records); });
  }

  void sample_counters() {
    if (!nvml) return;
    const trace::TimeNs now = monotonic_ns();
    for (const cupti::GpuCounterSample& sample : nvml->sample()) {
      add_counter(sample.device, kUtilizationCounter, now, sample.utilization_percent);
      add_counter(sample.device, kMemoryUsedCounter, now, sample.memory_used_bytes);
      add_counter(sample.device, kSmClockCounter, now, sample.sm_clock_mhz);
      add_counter(sample.device, kPowerCounter, now, sample.power_watts);
    }
  }

  void add_counter(std::uint32_t device, const char* counter, trace::TimeNs time,
                   const std::optional<double>& value) {
    if (!value) return;
    const std::string name = "GPU " + std::to_string(device) + " " + counter;
    auto [entry, inserted] = counter_tracks.try_emplace(name, 0);
    if (inserted) {
      trace::TrackInfo info;
      info.kind = trace::TrackKind::kCounter;
      info.name = sink.intern(name);
      info.process = process;
      info.device = static_cast<std::int32_t>(device);
      entry->second = sink.add_track(info);
    }
    sink.add_counter_sample(entry->second, time, *value);
    ++counter_samples;
  }

  trace::TraceSink& sink;
  std::uint32_t process;
  std::optional<cupti::ActivityConverter> converter;
  std::optional<cupti::NvmlSampler> nvml;
  std::map<std::string, std::uint32_t> counter_tracks;
  trace::TimeNs session_start;
  std::uint64_t dropped_at_start = 0;
  std::uint64_t counter_samples = 0;
};

GpuSessionWriter::GpuSessionWriter(trace::TraceSink& sink, std::uint32_t process)
    : state_(std::make_unique<State>(sink, process)) {}

GpuSessionWriter::~GpuSessionWriter() = default;

void GpuSessionWriter::drain() {
  if (!state_->converter) {
    if (!gpu_capture_running()) return;
    state_->attach();
  }
  cupti::CuptiActivity::instance().flush_completed();
  state_->convert_completed();
  state_->sample_counters();
}

void GpuSessionWriter::finish() {
  drain();
  if (!state_->converter) return;
  cupti::CuptiActivity& activity = cupti::CuptiActivity::instance();
  const int synchronized = cupti::synchronize_active_devices();
  activity.flush_forced();
  state_->convert_completed();
  const std::uint64_t dropped = activity.dropped_records() - state_->dropped_at_start;
  const std::uint64_t incomplete = state_->converter->incomplete_records();
  state_->sink.add_dropped_events(dropped + incomplete);
  state_->sink.set_metadata_value("cupti_dropped_records", std::to_string(dropped));
  state_->sink.set_metadata_value("cupti_incomplete_records", std::to_string(incomplete));
  state_->sink.set_metadata_value("cupti_devices_synchronized_at_stop",
                                  std::to_string(synchronized));
}

std::uint64_t GpuSessionWriter::events() const {
  return (state_->converter ? state_->converter->events() : 0) + state_->counter_samples;
}

}  // namespace tscope::profiler
