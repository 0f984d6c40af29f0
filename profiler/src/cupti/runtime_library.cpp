#include "runtime_library.h"

#include <dlfcn.h>

#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler::cupti {

RuntimeLibrary::RuntimeLibrary(const std::vector<std::string>& candidates) {
  std::string failures;
  for (const std::string& candidate : candidates) {
    handle_ = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) {
      name_ = candidate;
      return;
    }
    const char* error = dlerror();
    if (!failures.empty()) failures += "; ";
    failures += error != nullptr ? std::string(error) : candidate + ": not found";
  }
  throw GpuCaptureError("cannot load " +
                        (candidates.empty() ? std::string("a library") : candidates.front()) +
                        " (" + failures + ")");
}

void* RuntimeLibrary::raw_symbol(const char* symbol_name) const {
  return dlsym(handle_, symbol_name);
}

void* RuntimeLibrary::required_symbol(const char* symbol_name) const {
  void* found = raw_symbol(symbol_name);
  if (found == nullptr) {
    throw GpuCaptureError(name_ + " lacks " + symbol_name + " (a newer CUDA release is needed)");
  }
  return found;
}

}  // namespace tscope::profiler::cupti
