#pragma once
// A minimal streaming JSON writer with correct string escaping, enough for the report schema:
// objects, arrays, strings, numbers, booleans and null, with commas placed for the caller.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tscope::analyzer {

class JsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // Inside an object, the key of the next value.
  void key(std::string_view name);
  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(double number);  // non-finite numbers become null, as JSON has no NaN
  void value(std::int64_t number);
  void value(std::uint64_t number);
  void value(bool flag);
  void null();

  const std::string& str() const { return out_; }

 private:
  void before_value();

  std::string out_;
  // Per open container: whether it already holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace tscope::analyzer
