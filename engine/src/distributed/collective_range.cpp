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

CollectiveRange::CollectiveRange(Backend backend, const CollectiveCall& call, int world_size,
                                 std::string_view group_name, std::string_view group_ranks) {
  if (!profiler::enabled()) return;
  // The arguments are copied when the range begins; the bucket index comes last, present only
  // for data-parallel gradient buckets.
  const profiler::Arg args[] = {
      {"Collective name", kineto_collective_name(call.op)},
      {"In msg nelems", call.in_elements},
      {"Out msg nelems", call.out_elements},
      {"dtype", kineto_dtype_name(call.dtype)},
      {"Group size", world_size},
      {"Process Group Name", group_name},
      {"Process Group Ranks", group_ranks},
      {"Seq", call.sequence},
      {"bytes", call.in_bytes},
      {"async", call.async ? 1 : 0},
      {"bucket", call.bucket.value_or(0)},
  };
  const std::size_t count = std::size(args) - (call.bucket ? 0 : 1);
  range_.emplace(collective_span_name(backend, call.op), trace::Category::kCommunication,
                 std::span<const profiler::Arg>(args, count));
}

}  // namespace tscope::engine::distributed
