// The entry point of libtscope_inject.so, the library `tscope record` names in
// NVTX_INJECTION64_PATH: NVTX loads it on the program's first NVTX call and calls this.

#include <dlfcn.h>

#include "tscope/profiler/nvtx_capture.h"

using InitializeInjection = int (*)(tscope::profiler::NvtxGetExportTable);

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    tscope::profiler::NvtxGetExportTable get_export_table) {
  // A program that links tensorscope exports its own static injection: let that profiler capture
  // (it also records the engine natively), so the process never runs two sessions.
  const auto* in_process = reinterpret_cast<const InitializeInjection*>(
      dlsym(RTLD_DEFAULT, "InitializeInjectionNvtx2_fnptr"));
  if (in_process != nullptr && *in_process != nullptr) return (*in_process)(get_export_table);
  return tscope::profiler::initialize_nvtx_injection(get_export_table);
}
