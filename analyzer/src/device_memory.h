#pragma once
// Each device's peak of live bytes against its memory: for traces whose memory events carry a
// device (Kineto's [memory] events, our CUDA pools) and whose metadata names the device's total
// memory ("device.N.total_memory", from Kineto's deviceProperties totalGlobalMem).

#include <cstdint>
#include <optional>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::analyzer {

struct DevicePeak {
  std::int32_t device = -1;
  std::uint64_t peak_bytes = 0;
  trace::TimeNs peak_time = 0;
  std::optional<std::uint64_t> total_bytes;  // the device's memory, when the trace says it
};

// Devices (not the host) with memory events, by device number.
std::vector<DevicePeak> device_peaks(const trace::Trace& trace);

}  // namespace tscope::analyzer
