// The CUDA entry point of libtscope_inject.so, the library `tscope record` names in
// CUDA_INJECTION64_PATH: the driver loads it when the program initialises CUDA and calls
// InitializeInjection, which starts GPU capture in the recording session.

#include <dlfcn.h>

#include <cstdio>

#include "tscope/profiler/gpu_capture.h"

using CudaInjection = void (*)();

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  // A program that links tensorscope exports its own entry: its profiler captures, so one process
  // never runs two sessions (as for NVTX, see nvtx_injection_entry.cpp).
  const auto* in_process =
      reinterpret_cast<const CudaInjection*>(dlsym(RTLD_DEFAULT, "tscope_cuda_injection_fnptr"));
  if (in_process == nullptr || *in_process == nullptr) {
    tscope::profiler::initialize_cuda_injection();
    return 1;
  }
  // The program's entry comes from its own tensorscope, perhaps an older one whose entry could
  // throw: nothing may unwind into the driver.
  try {
    (*in_process)();
  } catch (...) {
    std::fputs("tscope: GPU capture is off: the program's own CUDA injection entry threw\n",
               stderr);
  }
  // Failing here would make the driver fail the program's CUDA initialisation; capture problems
  // were reported and the program must run on.
  return 1;
}
