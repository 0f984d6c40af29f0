#pragma once
// The handle of an asynchronous collective: wait() blocks until it is done (and rethrows its
// failure), recording the wait as a "wait:<op>" range so that a trace shows who waited how long.

#include <cstdint>
#include <memory>
#include <string_view>

#include "tscope/engine/distributed/collective.h"

namespace tscope::engine::distributed {

namespace detail {
// How a backend signals completion (defined in the engine's src/distributed/work_state.h).
class WorkState;
}  // namespace detail

class Work {
 public:
  Work() = default;
  Work(std::shared_ptr<detail::WorkState> state, Collective op, std::int64_t sequence,
       std::string_view static_group_name);

  bool defined() const { return state_ != nullptr; }
  // Blocks until the collective has finished; rethrows its DistributedError. Calling it again
  // returns at once (or rethrows again).
  void wait();
  // Whether it has finished, without blocking.
  bool completed() const;

 private:
  std::shared_ptr<detail::WorkState> state_;
  Collective op_ = Collective::kBarrier;
  std::int64_t sequence_ = 0;
  std::string_view group_name_;
};

}  // namespace tscope::engine::distributed
