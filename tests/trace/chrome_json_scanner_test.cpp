// The Chrome reader's own JSON scanner against simdjson's DOM: on every text it takes, the same
// values with the same types (int64, uint64, double, strings unescaped); what it declines goes to
// simdjson, so the document still reads valid JSON the scanner does not take and rejects what
// simdjson rejects.

#include "chrome_json_scanner.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <bit>
#include <random>
#include <string>
#include <vector>

#include "chrome_json_document.h"

namespace tscope::trace::chrome_json {
namespace {

namespace dom = simdjson::dom;

// A canonical rendering with each value's type, so that 1, 1.0 and "1" differ.
std::string render(JsonValue value) {
  switch (value.type()) {
    case JsonType::kNull:
      return "null";
    case JsonType::kBool:
      return value.boolean() ? "true" : "false";
    case JsonType::kInt64:
      return "i" + std::to_string(value.int64());
    case JsonType::kUint64:
      return "u" + std::to_string(value.uint64());
    case JsonType::kDouble:
      return "d" + std::to_string(std::bit_cast<std::uint64_t>(value.dbl()));
    case JsonType::kString:
      return "s" + std::string(value.text()) + ";";
    case JsonType::kArray: {
      std::string text = "[";
      for (const JsonValue item : JsonArray(value))
        text += render(item) + ",";
      return text + "]";
    }
    case JsonType::kObject: {
      std::string text = "{";
      for (const JsonField field : JsonObject(value))
        text += std::string(field.key) + ":" + render(field.value) + ",";
      return text + "}";
    }
  }
  return "?";
}

std::string render(dom::element value) {
  switch (value.type()) {
    case dom::element_type::NULL_VALUE:
      return "null";
    case dom::element_type::BOOL:
      return value.get_bool().value_unsafe() ? "true" : "false";
    case dom::element_type::INT64:
      return "i" + std::to_string(value.get_int64().value_unsafe());
    case dom::element_type::UINT64:
      return "u" + std::to_string(value.get_uint64().value_unsafe());
    case dom::element_type::DOUBLE:
      return "d" + std::to_string(std::bit_cast<std::uint64_t>(value.get_double().value_unsafe()));
    case dom::element_type::STRING:
      return "s" + std::string(value.get_string().value_unsafe()) + ";";
    case dom::element_type::ARRAY: {
      std::string text = "[";
      const dom::array items = value.get_array().value_unsafe();
      for (const dom::element item : items)
        text += render(item) + ",";
      return text + "]";
    }
    case dom::element_type::OBJECT: {
      std::string text = "{";
      const dom::object fields = value.get_object().value_unsafe();
      for (const dom::key_value_pair field : fields)
        text += std::string(field.key) + ":" + render(field.value) + ",";
      return text + "}";
    }
  }
  return "?";
}

std::string padded(const std::string& text) {
  return text + std::string(simdjson::SIMDJSON_PADDING, '\0');
}

// simdjson's reading of `text`, empty when it rejects it.
std::string simdjson_reading(const std::string& text) {
  dom::parser parser;
  dom::element root;
  if (parser.parse(text).get(root) != simdjson::SUCCESS) return {};
  return render(root);
}

// The scanner's reading of `text`, empty when it declines it.
std::string scanner_reading(const std::string& text) {
  const std::string buffer = padded(text);
  JsonTape tape;
  if (!scan_json(buffer.data(), text.size(), tape)) return {};
  return render(tape.root());
}

const std::vector<std::string> kNumbers = {
    "0",
    "-0",
    "7",
    "-12",
    "1623142623460111",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "10000000000000000000",
    "1.5",
    "-0.0",
    "2.5e3",
    "1E-7",
    "1e+2",
    "0.1",
    "1694526838543210.123",
    "3.1415926535897932384626433832795028841971693993751",
    "123456789012345678901234567890.5",
    "2.2250738585072011e-308",
    "4.9e-324",
    "1.7976931348623157e308",
    "4458676522690.655",
    "9007199254740.992",
    "9007199254740.993",
    "-9007199254740991.0",
    "0.0000000000000000000001",
    "-1.0000000000000000000001",
    "123.4560",
};

TEST(ChromeJsonScannerTest, NumbersHaveSimdjsonsValuesAndTypes) {
  for (const std::string& number : kNumbers) {
    std::string text = "[";
    text += number;
    text += ", {\"n\": ";
    text += number;
    text += "}]";
    const std::string expected = simdjson_reading(text);
    ASSERT_FALSE(expected.empty()) << number;
    EXPECT_EQ(scanner_reading(text), expected) << number;
  }
}

TEST(ChromeJsonScannerTest, DecimalsOnBothSidesOfTheFastPathHaveSimdjsonsValues) {
  // Integer parts of up to 17 digits and fractions of 1 to 24: mantissas below and above 2^53,
  // powers of ten a double holds exactly and beyond.
  std::mt19937_64 random(5);
  std::uniform_int_distribution<int> digit(0, 9);
  std::uniform_int_distribution<int> integer_digits(1, 17);
  std::uniform_int_distribution<int> fraction_digits(1, 24);
  for (int round = 0; round < 2000; ++round) {
    std::string number = round % 3 == 0 ? "-" : "";
    const int integers = integer_digits(random);
    number += static_cast<char>('1' + digit(random) % 9);
    for (int at = 1; at < integers; ++at)
      number += static_cast<char>('0' + digit(random));
    number += '.';
    for (int at = fraction_digits(random); at > 0; --at)
      number += static_cast<char>('0' + digit(random));
    const std::string text = "[" + number + "]";
    EXPECT_EQ(scanner_reading(text), simdjson_reading(text)) << number;
  }
}

TEST(ChromeJsonScannerTest, NumbersKeepTheirTextAsWritten) {
  const std::string buffer = padded("[1694526838543210.123, -12]");
  JsonTape tape;
  ASSERT_TRUE(scan_json(buffer.data(), buffer.size() - simdjson::SIMDJSON_PADDING, tape));
  std::vector<std::string_view> texts;
  for (const JsonValue item : JsonArray(tape.root()))
    texts.push_back(item.text());
  EXPECT_EQ(texts, (std::vector<std::string_view>{"1694526838543210.123", "-12"}));
}

TEST(ChromeJsonScannerTest, StringsAreUnescapedAsSimdjsonDoes) {
  for (const std::string text : {R"(["plain", "a\"b", "back\\slash", "\/\b\f\n\r\t", ""])",
                                 R"({"k\"ey": "v", "": "empty key", "é": "ü ✓"})"}) {
    const std::string expected = simdjson_reading(text);
    ASSERT_FALSE(expected.empty()) << text;
    EXPECT_EQ(scanner_reading(text), expected) << text;
  }
}

TEST(ChromeJsonScannerTest, NestingAndRepeatedKeysKeepTheirOrder) {
  const std::string text =
      R"({"a": [[], {}, [1, [2, [3]]], {"b": {"c": null}}], "a": true, "d": false})";
  EXPECT_EQ(scanner_reading(text), simdjson_reading(text));
}

// Valid JSON the scanner leaves to simdjson: the document reads it all the same.
const std::vector<std::string> kDeclinedValid = {
    R"(["caf\u00e9", "\ud83d\ude00"])",
    "[1e-400]",
    std::string(300, '[') + std::string(300, ']'),
};

TEST(ChromeJsonScannerTest, ValidTextTheScannerDeclinesIsReadThroughSimdjson) {
  for (const std::string& text : kDeclinedValid) {
    EXPECT_TRUE(scanner_reading(text).empty()) << text;
    ChromeJsonDocument document;
    const JsonValue root = document.parse_copy(text);
    ASSERT_TRUE(root) << text;
    EXPECT_TRUE(document.used_dom());
    EXPECT_EQ(render(root), simdjson_reading(text)) << text;
  }
}

// Invalid JSON: the scanner declines and the document, through simdjson, says why.
const std::vector<std::string> kInvalid = {
    "[1,]",
    "[01]",
    "[1.]",
    "[.5]",
    "[-]",
    "[+1]",
    "[1e]",
    "[1e400]",
    "[tru]",
    "[truex]",
    "[nul]",
    "{\"a\" 1}",
    "{\"a\":1,}",
    "{a:1}",
    "[1 2]",
    "[\"\x01\"]",
    "[\"\\x\"]",
    "[\"open]",
    "[1]]",
    "[1] 2",
    "[\f1]",
    "[123abc]",
    "[1.5.5]",
    "[-01]",
    "[18446744073709551616]",
    "[-9223372036854775809]",
    "",
};

TEST(ChromeJsonScannerTest, InvalidTextIsDeclinedAndSimdjsonSaysWhy) {
  for (const std::string& text : kInvalid) {
    EXPECT_TRUE(simdjson_reading(text).empty()) << text;
    EXPECT_TRUE(scanner_reading(text).empty()) << text;
    ChromeJsonDocument document;
    EXPECT_FALSE(document.parse_copy(text)) << text;
    EXPECT_STRNE(document.error(), "") << text;
  }
}

TEST(ChromeJsonScannerTest, InvalidUtf8IsRejectedThroughSimdjson) {
  ChromeJsonDocument document;
  EXPECT_FALSE(document.parse_copy("[\"\xff\"]"));
  EXPECT_STRNE(document.error(), "");
}

TEST(ChromeJsonScannerTest, ObjectsKeepTheirTextForALaterParse) {
  const std::string text = R"([{"ph": "B", "name": "a\"b"}, {"ph":"E"}])";
  ChromeJsonDocument document;
  const JsonValue root = document.parse_copy(text);
  ASSERT_TRUE(root);
  const JsonValue first = *JsonArray(root).begin();
  EXPECT_EQ(first.text(), R"({"ph": "B", "name": "a\"b"})");
  ChromeJsonDocument again;
  EXPECT_EQ(render(again.parse_copy(first.text())), simdjson_reading(std::string(first.text())));
}

}  // namespace
}  // namespace tscope::trace::chrome_json
