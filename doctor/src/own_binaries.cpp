#include "tscope/doctor/own_binaries.h"

#include <link.h>

#include <string_view>

namespace tscope::doctor {
namespace {

int collect_tensorscope_library(dl_phdr_info* info, std::size_t, void* paths) {
  const std::string_view name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (std::filesystem::path(name).filename().string().starts_with("libtscope")) {
    static_cast<std::vector<std::filesystem::path>*>(paths)->emplace_back(name);
  }
  return 0;
}

}  // namespace

std::vector<std::filesystem::path> own_binaries() {
  std::vector<std::filesystem::path> paths;
  std::error_code error;
  // /proc/self/exe and not argv[0]: it names the file even when started through PATH or a link.
  auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    paths.push_back(std::move(executable));
  }
  dl_iterate_phdr(collect_tensorscope_library, &paths);
  return paths;
}

}  // namespace tscope::doctor
