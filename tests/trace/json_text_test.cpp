// JSON string literals: whatever bytes a trace name holds, the literal is valid JSON.

#include "tscope/trace/json_text.h"

#include <gtest/gtest.h>

namespace tscope::trace {
namespace {

TEST(JsonText, EscapesQuotesAndBackslashes) {
  EXPECT_EQ(json_quote(R"(say "hi" \ bye)"), R"("say \"hi\" \\ bye")");
}

TEST(JsonText, WritesEveryControlCharacterAsUnicodeEscape) {
  EXPECT_EQ(json_quote(std::string_view("\n\t\x01\x1f", 4)), R"("\u000a\u0009\u0001\u001f")");
  EXPECT_EQ(json_quote(std::string_view("a\0b", 3)), R"("a\u0000b")");
}

TEST(JsonText, KeepsWellFormedUtf8) {
  EXPECT_EQ(json_quote("µs → ✓ 🚀"), "\"µs → ✓ 🚀\"");
}

TEST(JsonText, ReplacesMalformedUtf8WithReplacementCharacter) {
  // A lone continuation byte, a truncated sequence, an overlong '/' and a UTF-16 surrogate.
  EXPECT_EQ(json_quote("a\x80z"), R"("a\ufffdz")");
  EXPECT_EQ(json_quote("\xE2\x82"), R"("\ufffd\ufffd")");
  EXPECT_EQ(json_quote("\xC0\xAF"), R"("\ufffd\ufffd")");
  EXPECT_EQ(json_quote("\xED\xA0\x80"), R"("\ufffd\ufffd\ufffd")");
}

TEST(JsonText, AppendsAfterExistingText) {
  std::string out = "{\"name\":";
  append_json_string(out, "x");
  EXPECT_EQ(out, R"({"name":"x")");
}

}  // namespace
}  // namespace tscope::trace
