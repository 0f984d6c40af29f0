#include "callback_names.h"

#include <algorithm>
#include <cctype>
#include <span>

namespace tscope::profiler::cupti {
namespace {

struct CallbackNameEntry {
  CUpti_CallbackId id;
  std::string_view name;
};

#include "callback_name_table.inc"

// find_name binary-searches the tables, which list ids in the order of CUPTI's enumerations.
constexpr bool sorted_by_id(std::span<const CallbackNameEntry> table) {
  return std::is_sorted(table.begin(), table.end(),
                        [](const auto& a, const auto& b) { return a.id < b.id; });
}
static_assert(sorted_by_id(kRuntimeCallbackNames) && sorted_by_id(kDriverCallbackNames));

// Release tags have four or five digits (_v3020, _v11060); driver symbol versions have one.
constexpr std::size_t kMinReleaseTagDigits = 4;

std::string_view find_name(std::span<const CallbackNameEntry> table, CUpti_CallbackId id) {
  const auto found = std::lower_bound(
      table.begin(), table.end(), id,
      [](const CallbackNameEntry& entry, CUpti_CallbackId wanted) { return entry.id < wanted; });
  return found != table.end() && found->id == id ? found->name : std::string_view();
}

}  // namespace

std::string_view without_release_tag(std::string_view name) {
  const std::size_t tag = name.rfind("_v");
  if (tag == std::string_view::npos) return name;
  const std::string_view digits = name.substr(tag + 2);
  const bool all_digits = std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  return all_digits && digits.size() >= kMinReleaseTagDigits ? name.substr(0, tag) : name;
}

std::string_view generated_callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  switch (domain) {
    case CUPTI_CB_DOMAIN_RUNTIME_API:
      return find_name(kRuntimeCallbackNames, id);
    case CUPTI_CB_DOMAIN_DRIVER_API:
      return find_name(kDriverCallbackNames, id);
    default:
      return {};
  }
}

std::string callback_display_name(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  std::string_view reported_name) {
  const std::string_view name =
      reported_name.empty() ? generated_callback_name(domain, id) : reported_name;
  if (!name.empty()) return std::string(without_release_tag(name));
  return (domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver call " : "runtime call ") +
         std::to_string(id);
}

}  // namespace tscope::profiler::cupti
