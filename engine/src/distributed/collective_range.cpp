#include "distributed/collective_range.h"

#include <mutex>
#include <set>

namespace tscope::engine::distributed {

std::string_view persistent_text(const std::string& text) {
  static std::mutex mutex;
  // Never freed: a session may still write a range that points at one after its group is gone.
  static auto* texts = new std::set<std::string>();
  const std::lock_guard lock(mutex);
  return *texts->insert(text).first;
}

std::string group_ranks_text(int world_size) {
  std::string text = "[";
  for (int rank = 0; rank < world_size; ++rank) {
    if (rank > 0) text += ", ";
    text += std::to_string(rank);
  }
  return text + "]";
}

template <typename... Extra>
void CollectiveRange::begin(Backend backend, const CollectiveCall& call, int world_size,
                            std::string_view group_name, std::string_view group_ranks,
                            Extra... extra) {
  range_.emplace(
      collective_span_name(backend, call.op), trace::Category::kCommunication,
      std::initializer_list<profiler::Arg>{{"Collective name", kineto_collective_name(call.op)},
                                           {"In msg nelems", call.in_elements},
                                           {"Out msg nelems", call.out_elements},
                                           {"dtype", kineto_dtype_name(call.dtype)},
                                           {"Group size", world_size},
                                           {"Process Group Name", group_name},
                                           {"Process Group Ranks", group_ranks},
                                           {"Seq", call.sequence},
                                           {"bytes", call.in_bytes},
                                           {"async", call.async ? 1 : 0},
                                           extra...});
}

CollectiveRange::CollectiveRange(Backend backend, const CollectiveCall& call, int world_size,
                                 std::string_view group_name, std::string_view group_ranks) {
  if (!profiler::enabled()) return;
  // Only data-parallel gradient buckets carry a bucket index.
  if (call.bucket) {
    begin(backend, call, world_size, group_name, group_ranks,
          profiler::Arg("bucket", *call.bucket));
  } else {
    begin(backend, call, world_size, group_name, group_ranks);
  }
}

}  // namespace tscope::engine::distributed
