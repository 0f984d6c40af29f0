#pragma once
// Finding a batch that fits, in the manner of accelerate's find_executable_batch_size: training is
// tried at a batch size and, on out of memory, tried again at half of it, all in one process (and
// so in one trace, where each failed try is a step cut short by an out-of-memory event).

#include <cstdint>
#include <functional>

#include "tscope/engine/out_of_memory.h"

namespace tscope::examples {

// Called before each retry with the error that stopped the last try and the batch to try next.
using RetryNotice =
    std::function<void(const engine::OutOfMemory& error, std::int64_t next_batch_size)>;

// Runs `attempt(batch_size)`, halving the batch after each OutOfMemory until an attempt returns;
// returns the batch size that completed. Rethrows the error when even a batch of 1 does not fit.
std::int64_t run_halving_batch_on_oom(std::int64_t batch_size,
                                      const std::function<void(std::int64_t)>& attempt,
                                      const RetryNotice& on_retry);

}  // namespace tscope::examples
