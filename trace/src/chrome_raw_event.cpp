#include "chrome_raw_event.h"

#include "chrome_json_values.h"
#include "tscope/trace/chrome_kineto_names.h"

namespace tscope::trace::chrome_json {

RawEvent read_fields(dom::object object) {
  RawEvent event;
  event.object = object;
  for (const dom::key_value_pair field : object) {
    const std::string_view key = field.key;
    if (key == "ph") {
      const std::string_view phase = as_string(field.value);
      if (phase.size() == 1) event.phase = phase[0];
    } else if (key == "ts") {
      event.ts = field.value;
    } else if (key == "name") {
      event.name = as_string(field.value);
    } else if (key == "cat") {
      event.cat = as_string(field.value);
    } else if (key == "pid") {
      event.pid = field.value;
    } else if (key == "tid") {
      event.tid = field.value;
    } else if (key == "dur") {
      event.dur = field.value;
    } else if (key == "args" || key == kChromeSeparateArgsMember) {
      // Our writer's separate member, when present, holds what "args" would have.
      if (field.value.type() == dom::element_type::OBJECT && (key != "args" || !event.args)) {
        event.args = object_of(field.value);
      }
    } else if (key == "id") {
      event.id = field.value;
    } else if (key == "bp") {
      event.binding_point = as_string(field.value);
    } else if (key == "s") {
      event.scope = as_string(field.value);
    } else if (key == "id2") {
      // {"local": "0x1"} or {"global": "0x1"}: the scope of an async id.
      if (field.value.type() == dom::element_type::OBJECT) {
        for (const dom::key_value_pair scoped : object_of(field.value)) {
          event.id = scoped.value;
        }
      }
    }
  }
  return event;
}

std::optional<dom::element> arg(const RawEvent& event, std::string_view key) {
  if (!event.args) return std::nullopt;
  dom::element value;
  if (event.args->at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

}  // namespace tscope::trace::chrome_json
