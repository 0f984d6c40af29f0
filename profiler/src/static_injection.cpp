// NVTX's static injection point, compiled into every program that links tscope_profiler (an
// interface source of the library), so the program's own NVTX calls reach the capture without
// NVTX_INJECTION64_PATH; the executable exports it so that libtscope_inject.so, when named by
// that variable, finds it and hands over instead of starting a second profiler.

#include "tscope/profiler/nvtx_capture.h"

extern "C" {
int (*InitializeInjectionNvtx2_fnptr)(tscope::profiler::NvtxGetExportTable) =
    &tscope::profiler::initialize_nvtx_injection;
}
