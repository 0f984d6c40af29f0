#pragma once
// The CPU's attainable FP32 GEMM rate and memory bandwidth, measured here and now for the
// roofline of CPU traces: an OpenBLAS sgemm (the BLAS the engine's matrix products use) and a
// large memcpy, each the best of a few runs.

namespace tscope::cli {

struct CpuPeak {
  double flops = 0;
  double bytes_per_second = 0;
};

CpuPeak measure_cpu_peak();

}  // namespace tscope::cli
