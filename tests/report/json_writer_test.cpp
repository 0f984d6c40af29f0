// The JSON writer every report shares: escaping and comma placement.

#include "tscope/report/json_writer.h"

#include <gtest/gtest.h>

#include <limits>

namespace tscope {
namespace {

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  JsonWriter json;
  json.value("a\"b\\c\n\x01");
  EXPECT_EQ(json.str(), "\"a\\\"b\\\\c\\u000a\\u0001\"");
}

TEST(JsonWriter, PlacesCommasAndWritesNonFiniteAsNull) {
  JsonWriter json;
  json.begin_object();
  json.key("a");
  json.begin_array();
  json.value(std::int64_t{1});
  json.value(std::numeric_limits<double>::quiet_NaN());
  json.end_array();
  json.key("b");
  json.value(true);
  json.end_object();
  EXPECT_EQ(json.str(), "{\"a\":[1,null],\"b\":true}");
}

TEST(JsonWriter, IndentedLayoutPutsEachMemberOnItsOwnLine) {
  JsonWriter json(JsonLayout::kIndented);
  json.begin_object();
  json.field("schema", "x/1");
  json.key("empty");
  json.begin_array();
  json.end_array();
  json.key("items");
  json.begin_array();
  json.value(std::int64_t{1});
  json.value(std::int64_t{2});
  json.end_array();
  json.end_object();
  EXPECT_EQ(json.str(),
            "{\n  \"schema\": \"x/1\",\n  \"empty\": [],\n  \"items\": [\n    1,\n    2\n  ]\n}");
}

}  // namespace
}  // namespace tscope
