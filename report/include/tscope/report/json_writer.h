#pragma once
// The one JSON writer of every report (analyzer, regress, doctor): objects, arrays, strings,
// numbers, booleans and null, with commas placed for the caller and strings escaped by
// trace/json_text.h, so malformed UTF-8 from a trace still yields valid JSON.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tscope {

// kCompact: no white space (machine-read reports); kIndented: one member or element a line,
// indented two spaces a level, for reports people read too.
enum class JsonLayout { kCompact, kIndented };

class JsonWriter {
 public:
  explicit JsonWriter(JsonLayout layout = JsonLayout::kCompact) : layout_(layout) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // Inside an object, the key of the next value.
  void key(std::string_view name);
  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(double number);  // non-finite numbers become null, as JSON has no NaN
  void value(int number) { value(std::int64_t{number}); }
  void value(std::int64_t number);
  void value(std::uint64_t number);
  void value(bool flag);
  void null();
  // An array of strings.
  void value(const std::vector<std::string>& texts);
  // A value, or null when there is none.
  void value(const std::optional<double>& number);
  // The key and its value in one call.
  template <typename Value>
  void field(std::string_view name, const Value& field_value) {
    key(name);
    value(field_value);
  }

  // Under `name`, write(*section) where there is a section, else null (an analysis that did not
  // run, a measurement that was not taken).
  template <typename Section, typename Write>
  void optional_field(std::string_view name, const std::optional<Section>& section, Write write) {
    key(name);
    if (section) {
      write(*section);
    } else {
      null();
    }
  }
  // Under `name`, an array of one object per entry, its members written by write_members(entry).
  template <typename Entries, typename WriteMembers>
  void object_array(std::string_view name, const Entries& entries, WriteMembers write_members) {
    key(name);
    begin_array();
    for (const auto& entry : entries) {
      begin_object();
      write_members(entry);
      end_object();
    }
    end_array();
  }

  const std::string& str() const { return out_; }

 private:
  void before_value();
  void new_line();
  void open(char bracket);
  void close(char bracket);

  JsonLayout layout_;

  std::string out_;
  // Per open container: whether it already holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace tscope
