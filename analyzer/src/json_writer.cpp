#include "tscope/analyzer/json_writer.h"

#include <cmath>
#include <cstdio>

#include "tscope/trace/json_text.h"

namespace tscope::analyzer {

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) out_ += ',';
    has_element_.back() = true;
  }
}

void JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  has_element_.push_back(false);
}

void JsonWriter::end_object() {
  has_element_.pop_back();
  out_ += '}';
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  has_element_.push_back(false);
}

void JsonWriter::end_array() {
  has_element_.pop_back();
  out_ += ']';
}

void JsonWriter::key(std::string_view name) {
  before_value();
  trace::append_json_string(out_, name);
  out_ += ':';
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

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

}  // namespace tscope::analyzer
