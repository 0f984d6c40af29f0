#pragma once
// One report section in each format: its own drawing where it has one, else its table, laid out
// the same way for every analysis. The JSON and HTML blocks the sections are built from.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "tscope/analyzer/section.h"
#include "tscope/report/json_writer.h"

namespace tscope::analyzer {

std::string section_text(const Section& section);
std::string section_markdown(const Section& section);
void write_section_json(JsonWriter& json, const Section& section);  // one value
std::string section_html(const Section& section);

// An object of numeric fields, in the given order.
void write_number_object(JsonWriter& json,
                         std::initializer_list<std::pair<std::string_view, double>> fields);

std::string html_section(std::string_view id, std::string_view heading, const std::string& body);
std::string html_figure(std::string_view id, const std::string& svg, const std::string& caption);

}  // namespace tscope::analyzer
