#include "tscope/trace/arg_runs.h"

#include <algorithm>
#include <bit>
#include <string>
#include <type_traits>
#include <variant>

#include "tscope/trace/errors.h"
#include "tscope/trace/record_interner.h"

namespace tscope::trace {
namespace {

std::uint64_t hash_arg(const Arg& arg) {
  RecordHash hash;
  hash.mix(arg.key);
  hash.mix(arg.value.index());
  std::visit(
      [&](const auto& value) {
        using Value = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<Value, StringArg>) {
          hash.mix(value.id);
        } else if constexpr (std::is_same_v<Value, double>) {
          hash.mix(std::bit_cast<std::uint64_t>(value));
        } else {
          hash.mix(static_cast<std::uint64_t>(value));
        }
      },
      arg.value);
  return hash.value();
}

template <typename Value>
std::uint32_t next_index(const std::vector<Value>& table, std::size_t added, const char* what) {
  if (table.size() + added > kNoIndex) {
    throw TraceError(std::string("more than 2^32 - 1 ") + what + " in one trace");
  }
  return static_cast<std::uint32_t>(table.size());
}

}  // namespace

ArgRange ArgRuns::store(std::vector<Arg>& values, std::vector<std::uint32_t>& lists,
                        std::span<const Arg> run) {
  if (run.empty()) return {};
  indices_.clear();
  for (const Arg& arg : run) {
    indices_.push_back(distinct_args_.find_or_add(
        hash_arg(arg), [&](std::uint32_t stored) { return values[stored] == arg; },
        [&] {
          const std::uint32_t index = next_index(values, 1, "distinct arguments");
          values.push_back(arg);
          return index;
        }));
  }
  RecordHash hash;
  hash.mix_all(std::span<const std::uint32_t>(indices_));
  const std::uint32_t stored = distinct_lists_.find_or_add(
      hash.value(),
      [&](std::uint32_t index) {
        const ArgRange range = runs_[index];
        return range.count == indices_.size() &&
               std::equal(indices_.begin(), indices_.end(), lists.begin() + range.begin);
      },
      [&] {
        runs_.push_back({next_index(lists, indices_.size(), "argument list entries"),
                         static_cast<std::uint32_t>(indices_.size())});
        lists.insert(lists.end(), indices_.begin(), indices_.end());
        return static_cast<std::uint32_t>(runs_.size() - 1);
      });
  return runs_[stored];
}

}  // namespace tscope::trace
