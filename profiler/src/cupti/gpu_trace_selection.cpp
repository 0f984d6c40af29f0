#include <array>
#include <string>
#include <string_view>

#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler {
namespace {

struct TraceEntry {
  std::string_view name;
  bool GpuTraceSelection::*field;
};

constexpr std::array<TraceEntry, 4> kTraceEntries = {{
    {"runtime", &GpuTraceSelection::runtime},
    {"driver", &GpuTraceSelection::driver},
    {"sync", &GpuTraceSelection::synchronization},
    {"overhead", &GpuTraceSelection::overhead},
}};

}  // namespace

GpuTraceSelection parse_gpu_trace(std::string_view list) {
  GpuTraceSelection selection{false, false, false, false};
  if (list == "none") return selection;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view entry = list.substr(0, comma);
    bool known = false;
    for (const TraceEntry& candidate : kTraceEntries) {
      if (entry == candidate.name) {
        selection.*candidate.field = true;
        known = true;
      }
    }
    if (!known) {
      throw GpuCaptureError("unknown GPU trace record '" + std::string(entry) +
                            "' (known: runtime, driver, sync, overhead, or none)");
    }
    if (comma == std::string_view::npos) return selection;
    list.remove_prefix(comma + 1);
  }
}

std::string gpu_trace_text(const GpuTraceSelection& selection) {
  std::string text;
  for (const TraceEntry& entry : kTraceEntries) {
    if (!(selection.*entry.field)) continue;
    if (!text.empty()) text += ',';
    text += entry.name;
  }
  return text.empty() ? "none" : text;
}

}  // namespace tscope::profiler
