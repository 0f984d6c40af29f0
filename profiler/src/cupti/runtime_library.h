#pragma once
// A shared library opened at run time (CUPTI, NVML) with typed symbol lookup, so the profiler
// starts on machines that have neither. The handle is never closed: CUPTI calls back into the
// process until it exits, and a library unloaded under a running capture would crash it.

#include <string>
#include <vector>

namespace tscope::profiler::cupti {

class RuntimeLibrary {
 public:
  // Opens the first of `candidates` the dynamic loader finds. Throws GpuCaptureError naming every
  // candidate and the loader's message.
  explicit RuntimeLibrary(const std::vector<std::string>& candidates);

  const std::string& name() const { return name_; }

  // `Function` is taken from the library's own declaration (decltype), so a signature cannot
  // drift. Throws GpuCaptureError when the symbol is missing.
  template <typename Function>
  Function* symbol(const char* symbol_name) const {
    return reinterpret_cast<Function*>(required_symbol(symbol_name));
  }
  // nullptr when the library's version lacks the symbol.
  template <typename Function>
  Function* optional_symbol(const char* symbol_name) const {
    return reinterpret_cast<Function*>(raw_symbol(symbol_name));
  }

 private:
  void* required_symbol(const char* symbol_name) const;
  void* raw_symbol(const char* symbol_name) const;

  void* handle_ = nullptr;
  std::string name_;
};

}  // namespace tscope::profiler::cupti
