#pragma once
// Peak arithmetic rates and memory bandwidth of known GPUs, looked up by the device name a trace
// records (Kineto's deviceProperties, Nsight Systems' TARGET_INFO_GPU, our metadata), so that
// roofline and Tensor Core analyses can say how far the work is from what the device can do.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tscope/trace/trace.h"

namespace tscope::analyzer {

// Dense (no structured sparsity) rates at the boost clock, FLOP/s; 0 where the device has no such
// unit. "Matrix" rates are Tensor Cores on NVIDIA and Matrix Cores on AMD; on GeForce cards they
// are the rates with FP32 accumulation, which is what training uses.
struct DevicePeaks {
  std::string_view name;
  std::uint32_t sm_count = 0;  // streaming multiprocessors (compute units on AMD)
  std::uint32_t boost_clock_mhz = 0;
  double fp32_flops = 0;  // without matrix units
  double fp16_flops = 0;  // without matrix units
  double fp32_matrix_flops = 0;
  double tf32_matrix_flops = 0;
  double fp16_matrix_flops = 0;
  double bf16_matrix_flops = 0;
  double memory_bytes_per_second = 0;
};

// Every device of the table, in lookup order.
std::span<const DevicePeaks> known_devices();

// The table row for a device name as a trace records it ("NVIDIA A100-PG509-200", "Tesla
// V100-DGXS-32GB"); the memory size tells apart the variants whose names do not (A100 40/80 GB).
// Empty for a device the table does not know: callers say so rather than guess.
std::optional<DevicePeaks> find_device_peaks(std::string_view device_name,
                                             std::uint64_t total_memory_bytes = 0);

// The GPU a trace ran on: `device` (by default the device its first kernel names) when the
// metadata names it, else the one name all its devices share. Empty when the trace names no
// device or devices of several kinds.
struct TraceDevice {
  std::string name;
  std::optional<DevicePeaks> peaks;  // empty when the table does not know the name
};
std::optional<TraceDevice> trace_device(const trace::Trace& trace, std::int32_t device = -1);

}  // namespace tscope::analyzer
