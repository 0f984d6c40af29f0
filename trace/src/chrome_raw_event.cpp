#include "chrome_raw_event.h"

#include "chrome_json_values.h"
#include "tscope/trace/chrome_kineto_names.h"

namespace tscope::trace::chrome_json {

RawEvent read_fields(JsonValue element) {
  RawEvent event;
  event.object = element;
  if (!element.is(JsonType::kObject)) return event;
  bool seen_phase = false;
  // Every event passes here, so a key is told apart by its length first.
  for (const JsonField field : JsonObject(element)) {
    const std::string_view key = field.key;
    const JsonValue value = field.value;
    switch (key.size()) {
      case 1:
        if (key == "s") event.scope = as_string(value);
        break;
      case 2:
        if (key == "ph") {
          const std::string_view phase = as_string(value);
          if (phase.size() == 1) event.phase = phase[0];
          if (!seen_phase) event.metadata = phase == "M";
          seen_phase = true;
        } else if (key == "ts") {
          event.ts = value;
        } else if (key == "id") {
          event.id = value;
        } else if (key == "bp") {
          event.binding_point = as_string(value);
        }
        break;
      case 3:
        if (key == "cat") {
          event.cat = as_string(value);
        } else if (key == "pid") {
          event.pid = value;
        } else if (key == "tid") {
          event.tid = value;
        } else if (key == "dur") {
          event.dur = value;
        } else if (key == "id2" && value.is(JsonType::kObject)) {
          // {"local": "0x1"} or {"global": "0x1"}: the scope of an async id.
          for (const JsonField scoped : JsonObject(value))
            event.id = scoped.value;
        }
        break;
      default:
        if (key == "name") {
          event.name = as_string(value);
        } else if ((key == "args" || key == kChromeSeparateArgsMember) &&
                   value.is(JsonType::kObject) && (key != "args" || !event.args)) {
          // Our writer's separate member, when present, holds what "args" would have.
          event.args = JsonObject(value);
        }
        break;
    }
  }
  return event;
}

JsonValue arg(const RawEvent& event, std::string_view key) {
  return event.args ? event.args.find(key) : JsonValue();
}

}  // namespace tscope::trace::chrome_json
