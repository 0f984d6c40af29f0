#pragma once
// One Chrome trace event's fields that the importer reads, gathered in one pass over its keys,
// with the lookup of a single arg.

#include <simdjson.h>

#include <optional>
#include <string_view>

namespace tscope::trace::chrome_json {

namespace dom = simdjson::dom;

struct RawEvent {
  dom::object object;  // the whole event
  char phase = 0;
  std::string_view name;
  std::string_view cat;
  std::string_view binding_point;
  std::string_view scope;
  std::optional<dom::element> pid;
  std::optional<dom::element> tid;
  std::optional<dom::element> ts;
  std::optional<dom::element> dur;
  // The numbers as written, for times beyond a double's nanoseconds (see ChromeEventTimeTokens);
  // the importer fills them in.
  std::string_view ts_text;
  std::string_view dur_text;
  std::optional<dom::element> id;
  std::optional<dom::object> args;
};

RawEvent read_fields(dom::object object);
std::optional<dom::element> arg(const RawEvent& event, std::string_view key);

}  // namespace tscope::trace::chrome_json
