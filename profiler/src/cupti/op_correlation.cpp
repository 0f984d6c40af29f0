#include "op_correlation.h"

#include <atomic>

#include "tscope/profiler/record.h"

namespace tscope::profiler {
namespace {

std::atomic<OpCorrelationPush> push_hook{nullptr};
std::atomic<OpCorrelationPop> pop_hook{nullptr};
std::atomic<std::uint64_t> last_op_id{0};

}  // namespace

void set_op_correlation_hooks(OpCorrelationPush push, OpCorrelationPop pop) {
  pop_hook.store(pop, std::memory_order_release);
  push_hook.store(push, std::memory_order_release);
}

namespace detail {

std::uint64_t begin_op_correlation() {
  const OpCorrelationPush push = push_hook.load(std::memory_order_acquire);
  if (push == nullptr) return 0;
  const std::uint64_t id = last_op_id.fetch_add(1, std::memory_order_relaxed) + 1;
  push(id);
  return id;
}

void end_op_correlation() {
  if (const OpCorrelationPop pop = pop_hook.load(std::memory_order_acquire); pop != nullptr) pop();
}

}  // namespace detail
}  // namespace tscope::profiler
