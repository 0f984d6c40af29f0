#pragma once
// The session writer thread's half of GPU capture: each cycle it asks CUPTI for its completed
// buffers, converts them and samples the NVML counters; at stop it synchronizes the devices, makes
// CUPTI hand over what it still holds and stores in the trace the records CUPTI dropped and those
// left out without timestamps. Does nothing while
// GPU capture is not running in the process (it may start later, when the program initialises
// CUDA).

#include <cstdint>
#include <memory>

#include "tscope/trace/trace_sink.h"

namespace tscope::profiler {

class GpuSessionWriter {
 public:
  GpuSessionWriter(trace::TraceSink& sink, std::uint32_t process);
  ~GpuSessionWriter();
  GpuSessionWriter(const GpuSessionWriter&) = delete;
  GpuSessionWriter& operator=(const GpuSessionWriter&) = delete;

  void drain();
  void finish();

  std::uint64_t events() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tscope::profiler
