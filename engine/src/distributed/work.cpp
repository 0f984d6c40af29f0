#include "tscope/engine/distributed/work.h"

#include "distributed/work_state.h"
#include "tscope/profiler/record.h"

namespace tscope::engine::distributed {

namespace detail {

void CompletionState::complete(std::exception_ptr failure) {
  {
    const std::lock_guard lock(mutex_);
    done_ = true;
    failure_ = std::move(failure);
  }
  finished_.notify_all();
}

void CompletionState::block() {
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return done_; });
  profiler::flow_end(handoff_flow_, trace::FlowKind::kHandoff);
  if (failure_) std::rethrow_exception(failure_);
}

bool CompletionState::done() {
  const std::lock_guard lock(mutex_);
  return done_;
}

}  // namespace detail

Work::Work(std::shared_ptr<detail::WorkState> state, Collective op, std::int64_t sequence,
           std::string_view static_group_name)
    : state_(std::move(state)), op_(op), sequence_(sequence), group_name_(static_group_name) {}

void Work::wait() {
  if (!state_) return;
  const profiler::Range waiting(
      wait_span_name(op_), trace::Category::kSynchronization,
      {profiler::Arg("Seq", sequence_), profiler::Arg("Process Group Name", group_name_)});
  state_->block();
}

bool Work::completed() const {
  return !state_ || state_->done();
}

}  // namespace tscope::engine::distributed
