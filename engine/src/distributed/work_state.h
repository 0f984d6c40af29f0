#pragma once
// How a backend tells a Work handle that its collective finished: MPI's communication thread
// completes a CompletionState; NCCL's state waits on a CUDA event on its stream.

#include <condition_variable>
#include <exception>
#include <mutex>

#include "tscope/engine/distributed/work.h"
#include "tscope/profiler/record.h"

namespace tscope::engine::distributed::detail {

class WorkState {
 public:
  virtual ~WorkState() = default;
  // Blocks until done; rethrows the collective's failure.
  virtual void block() = 0;
  virtual bool done() = 0;
};

// Completed by another thread, with the collective's failure if it had one. The collective's span
// on that thread starts a handoff flow (trace::FlowKind::kHandoff) that block() ends in the wait's
// span, so the trace shows which collective a wait waited for.
class CompletionState final : public WorkState {
 public:
  CompletionState() : handoff_flow_(profiler::new_flow_id()) {}
  std::uint64_t handoff_flow() const { return handoff_flow_; }
  void complete(std::exception_ptr failure = nullptr);
  void block() override;
  bool done() override;

 private:
  const std::uint64_t handoff_flow_;
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::exception_ptr failure_;
};

}  // namespace tscope::engine::distributed::detail
