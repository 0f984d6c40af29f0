#include "tscope/trace/capture_window.h"

#include <charconv>
#include <string>

namespace tscope::trace {
namespace {

std::optional<TimeNs> time_value(const TraceMetadata& metadata, std::string_view key) {
  const auto found = metadata.values.find(std::string(key));
  if (found == metadata.values.end()) return std::nullopt;
  const std::string& text = found->second;
  TimeNs value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<CaptureWindow> capture_window(const TraceMetadata& metadata) {
  const std::optional<TimeNs> begin = time_value(metadata, kCaptureBeginKey);
  const std::optional<TimeNs> end = time_value(metadata, kCaptureEndKey);
  if (!begin || !end || *end < *begin) return std::nullopt;
  return CaptureWindow{*begin, *end};
}

void set_capture_window(TraceMetadata& metadata, const CaptureWindow& window) {
  metadata.values[std::string(kCaptureBeginKey)] = std::to_string(window.begin);
  metadata.values[std::string(kCaptureEndKey)] = std::to_string(window.end);
}

}  // namespace tscope::trace
