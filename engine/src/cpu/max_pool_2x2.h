#pragma once
// Max pooling's commonest case, 2 x 2 windows at stride 2, on CPUs with AVX-512, an output row at
// a time in vectors of 16 outputs: a window's four candidates are the even and odd columns of its
// two input rows, so a row takes four loads and four shuffles per 16 windows where the generic
// kernel of cpu/pool_kernels.cpp, its reference, compares window by window (measured in the
// example CNN: 290 -> 150 us a call). Masked loads and stores take a row's ragged end, which the
// example's 14- and 5-wide output rows are whole. The backward pass has no such kernel: it writes
// four times the gradient's bytes, and a vector version measured no faster.

#include <cstdint>

namespace tscope::engine::cpu {

// Whether the kernel below may run here (AVX-512F, and TSCOPE_MAX_CPU_ISA allows it).
bool max_pool_2x2_available();

// One output row: `outputs` windows over the input rows `top` and `top + width`, whose first
// element is at `top_index` in its plane. Each output gets its window's first maximum in
// row-major order (a NaN wins only from the window's first position) and that position's index
// in the plane.
void max_pool_2x2_row(const float* top, std::int64_t width, std::int64_t top_index,
                      std::int64_t outputs, float* values, std::int64_t* indices);

}  // namespace tscope::engine::cpu
