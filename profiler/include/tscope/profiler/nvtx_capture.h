#pragma once
// NVTX capture: tensorscope acts as the process's NVTX injection, so ranges, marks, domains,
// categories, registered strings and thread names from any code in the process (the user's,
// third-party libraries) become trace events while a session runs.
//
// In-process it is found through NVTX's static injection symbol InitializeInjectionNvtx2_fnptr,
// which every program linking tscope_profiler defines and exports (static_injection.cpp); other
// processes load libtscope_inject.so through NVTX_INJECTION64_PATH, and that library hands over
// to the in-process profiler when the program has one, so one process never runs two.

#include <cstdint>

namespace tscope::profiler {

using NvtxGetExportTable = const void* (*)(std::uint32_t export_table_id);

// What NVTX calls once per process on its first API call: starts the session `tscope record`
// asked for, if any (see environment.h), and attaches the capture's callbacks to the NVTX
// instance behind `get_export_table`. Returns 1 on success and 0 on failure, as NVTX expects.
int initialize_nvtx_injection(NvtxGetExportTable get_export_table);

}  // namespace tscope::profiler
