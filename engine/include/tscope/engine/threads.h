#pragma once
// How many threads the engine computes with on the CPU: its intra-op pool (elementwise ops,
// pooling, the convolution's unfolding, the optimizer updates) and OpenBLAS' threads, always set
// to the same count so the two never ask for more cores than that between them.

#include <string_view>

namespace tscope::engine {

// Read when the engine first computes on the CPU: a positive count; anything else makes that
// first op throw EngineError naming the variable. Unset, the count is OpenBLAS' own
// (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, else the cores).
inline constexpr std::string_view kNumThreadsVariable = "TSCOPE_NUM_THREADS";

// Sets both the pool and OpenBLAS to `count` threads (the caller's thread counts as one); throws
// EngineError unless count >= 1. Not to be called while another thread runs engine ops.
void set_num_threads(int count);
int num_threads();

}  // namespace tscope::engine
