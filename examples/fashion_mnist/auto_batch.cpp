#include "auto_batch.h"

namespace tscope::examples {

std::int64_t run_halving_batch_on_oom(std::int64_t batch_size,
                                      const std::function<void(std::int64_t)>& attempt,
                                      const RetryNotice& on_retry) {
  for (;;) {
    try {
      attempt(batch_size);
      return batch_size;
    } catch (const engine::OutOfMemory& error) {
      if (batch_size <= 1) throw;
      batch_size /= 2;
      on_retry(error, batch_size);
    }
  }
}

}  // namespace tscope::examples
