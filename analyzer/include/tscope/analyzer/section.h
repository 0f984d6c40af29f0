#pragma once
// A report section: a titled table an analysis returns beside its findings, which every renderer
// draws the same way (text, Markdown, JSON, HTML), or a section that draws itself where a table
// cannot show its data as the report has always shown it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tscope/report/json_writer.h"

namespace tscope::analyzer {

// What a column's numbers are, so each renderer formats them ("1.20 ms", "3.00 MiB", "12.3%").
enum class Unit : std::uint8_t {
  kText,         // a word or short phrase
  kName,         // an op or kernel name: cut to the renderer's width, code in Markdown
  kCount,        // a whole number
  kNanoseconds,  // a duration
  kBytes,
  kShare,  // a fraction 0..1, shown as a percentage
};

std::string_view to_string(Unit unit);  // "text", "name", "count", "ns", "bytes", "share"

struct Column {
  std::string name;
  Unit unit = Unit::kText;
};

using Cell = std::variant<std::string, double>;

// Draws a section in each format, for the sections whose layout is their own (the critical path's
// parts beside its two tables, the time breakdown's nested JSON object).
class SectionRenderer {
 public:
  virtual ~SectionRenderer() = default;
  virtual std::string text() const = 0;
  virtual std::string markdown() const = 0;
  virtual void json(JsonWriter& json) const = 0;  // one value: the section's field
  virtual std::string html() const = 0;           // empty where a chart already shows it
};

// A SectionRenderer over data that callers also read as data (the viewer, tests).
template <typename Data>
class DataSection : public SectionRenderer {
 public:
  explicit DataSection(Data data) : data_(std::move(data)) {}
  const Data& data() const { return data_; }

 private:
  Data data_;
};

struct Section {
  std::string key;    // its JSON field and HTML id, declared by its analysis: "critical_path"
  std::string title;  // its heading
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  // one cell per column: text or a number in its unit
  std::shared_ptr<const SectionRenderer> custom;  // null: drawn as the table above
};

}  // namespace tscope::analyzer
