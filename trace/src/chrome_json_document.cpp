#include "chrome_json_document.h"

#include <bit>
#include <cstdint>
#include <new>

#include "chrome_json_scanner.h"

namespace tscope::trace::chrome_json {
namespace {

namespace dom = simdjson::dom;

// Objects at this depth or above keep their text (minified), as the scanner keeps what was
// written: the importer reads an event's text back (a begin event kept until its end arrives).
constexpr int kDeepestObjectWithText = 1;

void append_element(JsonTape& tape, dom::element element, int depth) {
  switch (element.type()) {
    case dom::element_type::ARRAY: {
      const std::size_t index = tape.append(JsonType::kArray);
      // Copied out of simdjson's result wrapper: a range-for over a temporary's value dangles.
      const dom::array items = element.get_array().value_unsafe();
      for (const dom::element item : items)
        append_element(tape, item, depth + 1);
      tape.close(index);
      break;
    }
    case dom::element_type::OBJECT: {
      const std::size_t index = tape.append(JsonType::kObject);
      const dom::object fields = element.get_object().value_unsafe();
      for (const dom::key_value_pair field : fields) {
        tape.append(JsonType::kString, 0, field.key);
        append_element(tape, field.value, depth + 1);
      }
      tape.close(index);
      if (depth <= kDeepestObjectWithText)
        tape.set_text(index, tape.keep(simdjson::minify(element)));
      break;
    }
    case dom::element_type::INT64:
      tape.append(JsonType::kInt64, static_cast<std::uint64_t>(element.get_int64().value_unsafe()));
      break;
    case dom::element_type::UINT64:
      tape.append(JsonType::kUint64, element.get_uint64().value_unsafe());
      break;
    case dom::element_type::DOUBLE:
      tape.append(JsonType::kDouble,
                  std::bit_cast<std::uint64_t>(element.get_double().value_unsafe()));
      break;
    case dom::element_type::STRING:
      tape.append(JsonType::kString, 0, element.get_string().value_unsafe());
      break;
    case dom::element_type::BOOL:
      tape.append(JsonType::kBool, element.get_bool().value_unsafe() ? 1 : 0);
      break;
    case dom::element_type::NULL_VALUE:
      tape.append(JsonType::kNull);
      break;
  }
}

}  // namespace

JsonValue ChromeJsonDocument::parse(const char* text, std::size_t size) {
  used_dom_ = false;
  error_ = "";
  // simdjson checks UTF-8 over the whole text; so does this, before the scanner takes it.
  if (simdjson::validate_utf8(text, size) && scan_json(text, size, tape_)) return tape_.root();
  used_dom_ = true;
  tape_.clear(0);
  dom::element root;
  if (const auto error = parser_.parse(text, size, false).get(root); error != simdjson::SUCCESS) {
    // Memory that runs out is not a fault of the text: it goes where other allocations' do.
    if (error == simdjson::MEMALLOC) throw std::bad_alloc();
    error_ = simdjson::error_message(error);
    return {};
  }
  append_element(tape_, root, 0);
  return tape_.root();
}

JsonValue ChromeJsonDocument::parse_copy(std::string_view text) {
  padded_.assign(text);
  padded_.append(simdjson::SIMDJSON_PADDING, '\0');
  return parse(padded_.data(), text.size());
}

}  // namespace tscope::trace::chrome_json
