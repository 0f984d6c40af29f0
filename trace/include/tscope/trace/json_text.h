#pragma once
// JSON string literals for every writer of JSON in tensorscope (Chrome traces, analyzer reports,
// benchmark comparisons), so each escapes names the same way and always yields valid JSON.

#include <string>
#include <string_view>

namespace tscope::trace {

// Appends `text` as a JSON string literal: quotes and backslashes escaped, control characters as
// \u00XX, and bytes that are not well-formed UTF-8 as U+FFFD (trace names come from untrusted
// files and may hold anything).
void append_json_string(std::string& out, std::string_view text);

// `text` as a JSON string literal (see append_json_string).
std::string json_quote(std::string_view text);

}  // namespace tscope::trace
