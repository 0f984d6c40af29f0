#pragma once
// Interned strings of a trace: every name, category label and argument string is stored once and
// referred to by a 32-bit StringId, so event columns stay small and names compare by id.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tscope::trace {

using StringId = std::uint32_t;

// Id 0 is always the empty string, so a default-initialised name field is valid.
inline constexpr StringId kEmptyString = 0;

class StringTable {
 public:
  StringTable();
  StringTable(const StringTable& other);
  StringTable& operator=(const StringTable& other);
  StringTable(StringTable&& other) noexcept = default;
  StringTable& operator=(StringTable&& other) noexcept = default;

  // Returns the id of `text`, adding it when new. Ids are dense and assigned in order.
  StringId intern(std::string_view text);
  std::optional<StringId> find(std::string_view text) const;
  // Throws std::out_of_range for an id this table never issued.
  std::string_view view(StringId id) const;
  std::size_t size() const { return strings_.size(); }

  bool operator==(const StringTable& other) const { return strings_ == other.strings_; }

 private:
  void index_all();

  // A deque never moves its elements, so the views used as map keys stay valid as it grows.
  std::deque<std::string> strings_;
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace tscope::trace
