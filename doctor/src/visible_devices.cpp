#include "tscope/doctor/visible_devices.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace tscope::doctor {
namespace {

bool is_device_entry(std::string_view entry) {
  if (entry.starts_with("GPU-") || entry.starts_with("MIG-")) {
    return entry.size() > 4;
  }
  return !entry.empty() && std::ranges::all_of(entry, [](char character) {
    return std::isdigit(static_cast<unsigned char>(character));
  });
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

VisibleDevices parse_visible_devices(std::optional<std::string_view> value) {
  VisibleDevices result;
  if (!value) {
    return result;
  }
  result.is_set = true;
  std::string_view rest = *value;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view entry = trim(rest.substr(0, comma));
    if (!is_device_entry(entry)) {
      break;
    }
    ++result.usable_entries;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return result;
}

std::optional<std::string> visible_devices_variable() {
  if (const char* value = std::getenv("CUDA_VISIBLE_DEVICES"); value != nullptr) {
    return std::string(value);
  }
  return std::nullopt;
}

}  // namespace tscope::doctor
