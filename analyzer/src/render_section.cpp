#include "render_section.h"

#include <algorithm>
#include <cmath>

#include "report_rows.h"
#include "svg_chart.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

bool numeric(Unit unit) {
  return unit != Unit::kText && unit != Unit::kName;
}

std::string number_text(double value, Unit unit) {
  switch (unit) {
    case Unit::kNanoseconds:
      return format_duration(value);
    case Unit::kBytes:
      return format_bytes(value);
    case Unit::kShare:
      return format_percent(value);
    case Unit::kCount:
    case Unit::kText:
    case Unit::kName:
      break;
  }
  if (!std::isfinite(value)) return "-";
  return std::to_string(std::llround(value));
}

std::string cell_text(const Cell& cell, Unit unit) {
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  return number_text(std::get<double>(cell), unit);
}

// A cell as the text table shows it: names cut to width, then padded to the column's width.
std::string text_cell(const Section& section, std::size_t column, std::size_t row) {
  const Column& each = section.columns[column];
  const std::string text =
      row < section.rows.size() ? cell_text(section.rows[row][column], each.unit) : each.name;
  return each.unit == Unit::kName ? shorten(text, kTextNameWidth) : text;
}

// Characters on screen: UTF-8 continuation bytes ("µs") take no column of their own.
std::size_t columns_of(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string padded(const std::string& text, std::size_t width, bool right) {
  const std::size_t used = columns_of(text);
  const std::string padding(width > used ? width - used : 0, ' ');
  return right ? padding + text : text + padding;
}

std::string table_text(const Section& section) {
  const std::size_t header = section.rows.size();  // text_cell's row index of the column names
  std::vector<std::size_t> widths(section.columns.size(), 0);
  for (std::size_t c = 0; c < section.columns.size(); ++c) {
    for (std::size_t r = 0; r <= header; ++r)
      widths[c] = std::max(widths[c], columns_of(text_cell(section, c, r)));
  }
  const auto line = [&](std::size_t row) {
    std::string out;
    for (std::size_t c = 0; c < section.columns.size(); ++c)
      out += "  " + padded(text_cell(section, c, row), widths[c], numeric(section.columns[c].unit));
    return out + "\n";
  };
  std::string out = "\n" + section.title + "\n" + line(header);
  for (std::size_t r = 0; r < section.rows.size(); ++r)
    out += line(r);
  return out;
}

std::string table_markdown(const Section& section) {
  std::string out = "\n## " + markdown_cell(section.title) + "\n\n|";
  std::string rule = "|";
  for (const Column& column : section.columns) {
    out += " " + markdown_cell(column.name) + " |";
    rule += numeric(column.unit) ? "---:|" : "---|";
  }
  out += "\n" + rule + "\n";
  for (const std::vector<Cell>& row : section.rows) {
    out += "|";
    for (std::size_t c = 0; c < section.columns.size(); ++c) {
      const Column& column = section.columns[c];
      const std::string text = cell_text(row[c], column.unit);
      out += column.unit == Unit::kName
                 ? " `" + markdown_cell(shorten(text, kMarkdownNameWidth)) + "` |"
                 : " " + markdown_cell(text) + " |";
    }
    out += "\n";
  }
  return out;
}

void write_table_json(JsonWriter& json, const Section& section) {
  json.begin_object();
  json.field("title", section.title);
  json.object_array("columns", section.columns, [&](const Column& column) {
    json.field("name", column.name);
    json.field("unit", to_string(column.unit));
  });
  json.key("rows");
  json.begin_array();
  for (const std::vector<Cell>& row : section.rows) {
    json.begin_array();
    for (const Cell& cell : row)
      std::visit([&](const auto& value) { json.value(value); }, cell);
    json.end_array();
  }
  json.end_array();
  json.end_object();
}

std::string table_html(const Section& section) {
  std::string body = "<table><tr>";
  for (const Column& column : section.columns)
    body += "<th>" + html_escape(column.name) + "</th>";
  body += "</tr>\n";
  for (const std::vector<Cell>& row : section.rows) {
    body += "<tr>";
    for (std::size_t c = 0; c < section.columns.size(); ++c)
      body += "<td>" + html_escape(cell_text(row[c], section.columns[c].unit)) + "</td>";
    body += "</tr>\n";
  }
  std::string id = section.key;
  std::replace(id.begin(), id.end(), '_', '-');
  return html_section(id, html_escape(section.title), body + "</table>\n");
}

}  // namespace

std::string_view to_string(Unit unit) {
  switch (unit) {
    case Unit::kText:
      return "text";
    case Unit::kName:
      return "name";
    case Unit::kCount:
      return "count";
    case Unit::kNanoseconds:
      return "ns";
    case Unit::kBytes:
      return "bytes";
    case Unit::kShare:
      return "share";
  }
  return "text";
}

std::string section_text(const Section& section) {
  return section.custom ? section.custom->text() : table_text(section);
}

std::string section_markdown(const Section& section) {
  return section.custom ? section.custom->markdown() : table_markdown(section);
}

void write_section_json(JsonWriter& json, const Section& section) {
  if (section.custom) {
    section.custom->json(json);
  } else {
    write_table_json(json, section);
  }
}

std::string section_html(const Section& section) {
  return section.custom ? section.custom->html() : table_html(section);
}

void write_number_object(JsonWriter& json,
                         std::initializer_list<std::pair<std::string_view, double>> fields) {
  json.begin_object();
  for (const auto& [name, value] : fields)
    json.field(name, value);
  json.end_object();
}

std::string html_section(std::string_view id, std::string_view heading, const std::string& body) {
  return "<section id=\"" + std::string(id) + "\"><h2>" + std::string(heading) + "</h2>\n" + body +
         "</section>\n";
}

std::string html_figure(std::string_view id, const std::string& svg, const std::string& caption) {
  return "<figure class=\"chart\" data-chart=\"" + std::string(id) + "\">" + svg + "<figcaption>" +
         html_escape(caption) + "</figcaption></figure>\n";
}

}  // namespace tscope::analyzer
