#include "tscope/report/json_writer.h"

#include <cmath>
#include <cstdio>

#include "tscope/trace/json_text.h"

namespace tscope {

void JsonWriter::new_line() {
  out_ += '\n';
  out_.append(2 * has_element_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) out_ += ',';
    has_element_.back() = true;
    if (layout_ == JsonLayout::kIndented) new_line();
  }
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  has_element_.push_back(false);
}

void JsonWriter::close(char bracket) {
  const bool had_element = has_element_.back();
  has_element_.pop_back();
  if (had_element && layout_ == JsonLayout::kIndented) new_line();
  out_ += bracket;
}

void JsonWriter::begin_object() {
  open('{');
}

void JsonWriter::end_object() {
  close('}');
}

void JsonWriter::begin_array() {
  open('[');
}

void JsonWriter::end_array() {
  close(']');
}

void JsonWriter::key(std::string_view name) {
  before_value();
  trace::append_json_string(out_, name);
  out_ += layout_ == JsonLayout::kIndented ? ": " : ":";
  after_key_ = true;
}

void JsonWriter::value(std::string_view text) {
  before_value();
  trace::append_json_string(out_, text);
}

void JsonWriter::value(double number) {
  before_value();
  if (!std::isfinite(number)) {
    out_ += "null";
    return;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", number);
  out_ += text;
}

void JsonWriter::value(std::int64_t number) {
  before_value();
  out_ += std::to_string(number);
}

void JsonWriter::value(std::uint64_t number) {
  before_value();
  out_ += std::to_string(number);
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
}

void JsonWriter::value(const std::vector<std::string>& texts) {
  begin_array();
  for (const std::string& text : texts)
    value(text);
  end_array();
}

void JsonWriter::value(const std::optional<double>& number) {
  if (number) {
    value(*number);
  } else {
    null();
  }
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

}  // namespace tscope
