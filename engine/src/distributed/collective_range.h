#pragma once
// The communication range one collective is recorded as, on the thread that runs it, with
// record_param_comms' arguments (docs/distributed.md lists them), and the process-lifetime
// strings those arguments point at.

#include <optional>
#include <string>
#include <string_view>

#include "tscope/engine/distributed/collective.h"
#include "tscope/profiler/record.h"

namespace tscope::engine::distributed {

// A copy of `text` that lives until the process exits: range names and text arguments are
// recorded by address and read later by the session's writer thread.
std::string_view persistent_text(const std::string& text);

// "[0, 1, 2]" for a group of three.
std::string group_ranks_text(int world_size);

class CollectiveRange {
 public:
  // `group_name` and `group_ranks` must be persistent (see persistent_text).
  CollectiveRange(Backend backend, const CollectiveCall& call, int world_size,
                  std::string_view group_name, std::string_view group_ranks);
  CollectiveRange(const CollectiveRange&) = delete;
  CollectiveRange& operator=(const CollectiveRange&) = delete;

 private:
  // Begins the range with the arguments every collective has, then `extra`.
  template <typename... Extra>
  void begin(Backend backend, const CollectiveCall& call, int world_size,
             std::string_view group_name, std::string_view group_ranks, Extra... extra);

  std::optional<profiler::Range> range_;
};

}  // namespace tscope::engine::distributed
