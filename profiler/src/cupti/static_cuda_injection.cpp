// The CUDA injection entry of a program that links tensorscope, exported by the executable (an
// interface source of tscope_profiler) so that libtscope_inject.so, named by CUDA_INJECTION64_PATH,
// finds it and hands over: GPU capture then runs in the program's own profiler, beside its engine
// records, and the process never runs two.

#include "tscope/profiler/gpu_capture.h"

extern "C" {
void (*tscope_cuda_injection_fnptr)() = &tscope::profiler::initialize_cuda_injection;
}
