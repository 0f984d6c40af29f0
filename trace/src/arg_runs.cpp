#include "tscope/trace/arg_runs.h"

#include <algorithm>
#include <bit>
#include <type_traits>
#include <variant>

#include "tscope/trace/record_interner.h"

namespace tscope::trace {
namespace {

std::uint64_t hash_args(std::span<const Arg> args) {
  RecordHash hash;
  const auto mix = [&](std::uint64_t value) { hash.mix(value); };
  for (const Arg& arg : args) {
    mix(arg.key);
    mix(arg.value.index());
    std::visit(
        [&](const auto& value) {
          using Value = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<Value, StringArg>) {
            mix(value.id);
          } else if constexpr (std::is_same_v<Value, double>) {
            mix(std::bit_cast<std::uint64_t>(value));
          } else {
            mix(static_cast<std::uint64_t>(value));
          }
        },
        arg.value);
  }
  return hash.value();
}

}  // namespace

ArgRange ArgRuns::store(std::vector<Arg>& args, std::span<const Arg> run) {
  if (run.empty()) return {};
  std::vector<ArgRange>& same_hash = by_hash_[hash_args(run)];
  for (const ArgRange stored : same_hash) {
    if (stored.count == run.size() &&
        std::equal(run.begin(), run.end(), args.begin() + stored.begin)) {
      return stored;
    }
  }
  const ArgRange range{static_cast<std::uint32_t>(args.size()),
                       static_cast<std::uint32_t>(run.size())};
  args.insert(args.end(), run.begin(), run.end());
  same_hash.push_back(range);
  return range;
}

}  // namespace tscope::trace
