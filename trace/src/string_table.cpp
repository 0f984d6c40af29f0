#include "tscope/trace/string_table.h"

#include <stdexcept>
#include <string>

namespace tscope::trace {

StringTable::StringTable() {
  intern("");
}

StringTable::StringTable(const StringTable& other) : strings_(other.strings_) {
  index_all();
}

StringTable& StringTable::operator=(const StringTable& other) {
  if (this != &other) {
    strings_ = other.strings_;
    index_all();
  }
  return *this;
}

// The map's keys view this table's own strings, so a copy must re-point them.
void StringTable::index_all() {
  ids_.clear();
  ids_.reserve(strings_.size());
  for (std::size_t id = 0; id < strings_.size(); ++id) {
    ids_.emplace(strings_[id], static_cast<StringId>(id));
  }
}

StringId StringTable::intern(std::string_view text) {
  if (const auto found = ids_.find(text); found != ids_.end()) return found->second;
  const auto id = static_cast<StringId>(strings_.size());
  const std::string& stored = strings_.emplace_back(text);
  ids_.emplace(stored, id);
  return id;
}

std::optional<StringId> StringTable::find(std::string_view text) const {
  if (const auto found = ids_.find(text); found != ids_.end()) return found->second;
  return std::nullopt;
}

std::string_view StringTable::view(StringId id) const {
  if (id >= strings_.size()) {
    throw std::out_of_range("string id " + std::to_string(id) + " not in a table of " +
                            std::to_string(strings_.size()) + " strings");
  }
  return strings_[id];
}

}  // namespace tscope::trace
