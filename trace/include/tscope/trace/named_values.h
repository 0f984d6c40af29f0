#pragma once
// Constant tables that map names to values (trace categories, copy directions, collective ops,
// kernel-name patterns) and the three ways they are read: by exact name, by value, and by the
// first name a text contains.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tscope::trace {

template <typename Value>
struct NamedValue {
  std::string_view name;
  Value value;
};

// A table is written std::to_array<NamedValue<Value>>({{"name", value}, ...}), entries in the
// order the readers below search them.

template <typename Value, std::size_t N>
constexpr std::optional<Value> value_named(const std::array<NamedValue<Value>, N>& table,
                                           std::string_view name) {
  for (const NamedValue<Value>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// The name of the first entry that holds `value`.
template <typename Value, std::size_t N>
constexpr std::optional<std::string_view> name_of(const std::array<NamedValue<Value>, N>& table,
                                                  Value value) {
  for (const NamedValue<Value>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return std::nullopt;
}

// The first entry whose name occurs in `text`, or nullptr: for tables of substrings where order
// decides ("reducescatter" before "reduce").
template <typename Value, std::size_t N>
constexpr const NamedValue<Value>* first_contained_in(const std::array<NamedValue<Value>, N>& table,
                                                      std::string_view text) {
  for (const NamedValue<Value>& entry : table) {
    if (text.find(entry.name) != std::string_view::npos) return &entry;
  }
  return nullptr;
}

}  // namespace tscope::trace
