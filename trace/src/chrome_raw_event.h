#pragma once
// One Chrome trace event's fields that the importer reads, gathered in one pass over its keys,
// with the lookup of a single arg.

#include <string_view>

#include "chrome_json_tape.h"

namespace tscope::trace::chrome_json {

struct RawEvent {
  JsonValue object;  // the whole event; its text() is the event's JSON text
  // Its first "ph" is "M": a metadata event, which names the rows the others create (the first,
  // as simdjson's at_key found it before; `phase` holds the last "ph", as every other field).
  bool metadata = false;
  char phase = 0;
  std::string_view name;
  std::string_view cat;
  std::string_view binding_point;
  std::string_view scope;
  JsonValue pid;
  JsonValue tid;
  JsonValue ts;
  JsonValue dur;
  JsonValue id;
  JsonObject args;
};

// The fields of an element of the event array; none (phase 0) for a value that is no object.
RawEvent read_fields(JsonValue element);
// The first arg named `key`; a null view when the event has none.
JsonValue arg(const RawEvent& event, std::string_view key);

}  // namespace tscope::trace::chrome_json
