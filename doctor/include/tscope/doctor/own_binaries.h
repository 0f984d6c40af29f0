#pragma once
// The files that hold this process's GPU code: the running executable and any tensorscope
// shared library it loaded. Their fatbinaries say which GPUs our kernels can run on.

#include <filesystem>
#include <vector>

namespace tscope::doctor {

std::vector<std::filesystem::path> own_binaries();

}  // namespace tscope::doctor
