#include "device_memory.h"

#include <charconv>
#include <map>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>

namespace tscope::analyzer {

std::vector<DevicePeak> device_peaks(const trace::Trace& trace) {
  std::map<std::int32_t, DevicePeak> peaks;
  for (const trace::Track& track : trace.tracks()) {
    if (track.info().kind != trace::TrackKind::kMemoryPool || track.info().device < 0) continue;
    const trace::MemoryColumns& memory = track.memory();
    if (memory.size() == 0) continue;
    DevicePeak& peak = peaks[track.info().device];
    peak.device = track.info().device;
    // Blocks with an address are tracked exactly; address-less ones (the 2021 schema) move a net.
    std::unordered_map<std::uint64_t, std::uint64_t> live;
    std::uint64_t tracked = 0;
    std::int64_t net = 0;
    for (std::uint32_t i = 0; i < memory.size(); ++i) {
      const bool is_alloc = memory.action(i) == trace::MemoryAction::kAlloc;
      const std::uint64_t bytes = memory.bytes[i];
      if (memory.address[i] == 0) {
        net += is_alloc ? static_cast<std::int64_t>(bytes) : -static_cast<std::int64_t>(bytes);
      } else if (is_alloc) {
        tracked += bytes - std::exchange(live[memory.address[i]], bytes);
      } else if (const auto found = live.find(memory.address[i]); found != live.end()) {
        tracked -= found->second;
        live.erase(found);
      }
      const std::int64_t total = static_cast<std::int64_t>(tracked) + net;
      const std::uint64_t now = total > 0 ? static_cast<std::uint64_t>(total) : 0;
      if (now > peak.peak_bytes) {
        peak.peak_bytes = now;
        peak.peak_time = memory.time[i];
      }
    }
  }
  std::vector<DevicePeak> result;
  for (auto& [device, peak] : peaks) {
    const auto& values = trace.metadata().values;
    if (const auto found = values.find("device." + std::to_string(device) + ".total_memory");
        found != values.end()) {
      // A malformed figure is as good as none: no headroom is reported.
      const std::string& text = found->second;
      std::uint64_t total = 0;
      if (std::from_chars(text.data(), text.data() + text.size(), total).ec == std::errc{})
        peak.total_bytes = total;
    }
    result.push_back(peak);
  }
  return result;
}

}  // namespace tscope::analyzer
