#pragma once
// What CUDA_VISIBLE_DEVICES does to device enumeration: unset shows every GPU, an empty or
// invalid list hides them all, which looks exactly like "no GPU" to a program.

#include <optional>
#include <string>
#include <string_view>

namespace tscope::doctor {

struct VisibleDevices {
  bool is_set = false;
  // Entries CUDA will honour: it stops at the first one that is neither an index nor a UUID.
  int usable_entries = 0;
  bool hides_all() const { return is_set && usable_entries == 0; }
};

VisibleDevices parse_visible_devices(std::optional<std::string_view> value);

// The variable as this process sees it.
std::optional<std::string> visible_devices_variable();

}  // namespace tscope::doctor
