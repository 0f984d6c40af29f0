// A section without a drawing of its own, as every format shows it: a table whose numbers are
// formatted by their columns' units, which a new analysis gets without touching a renderer.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "render_section.h"
#include "tscope/report/json_writer.h"

namespace tscope::analyzer {
namespace {

Section slow_layers() {
  return {"slow_layers",
          "Slowest layers",
          {{"layer", Unit::kName},
           {"per step", Unit::kNanoseconds},
           {"share", Unit::kShare},
           {"calls", Unit::kCount},
           {"memory", Unit::kBytes}},
          {{std::string("encoder|attention"), 1'500'000.0, 0.25, 12.0, 3.0 * 1024 * 1024},
           {std::string("decoder"), 20'000.0, 0.005, 3.0, 512.0}},
          nullptr};
}

TEST(SectionRenderTest, TextAlignsColumnsUnderTheTitleWithUnits) {
  EXPECT_EQ(section_text(slow_layers()),
            "\nSlowest layers\n"
            "  layer              per step  share  calls    memory\n"
            "  encoder|attention   1.50 ms  25.0%     12  3.00 MiB\n"
            "  decoder             20.0 µs   0.5%      3     512 B\n");
}

TEST(SectionRenderTest, MarkdownIsATableWithNumbersRightAligned) {
  EXPECT_EQ(section_markdown(slow_layers()),
            "\n## Slowest layers\n\n"
            "| layer | per step | share | calls | memory |\n"
            "|---|---:|---:|---:|---:|\n"
            "| `encoder\\|attention` | 1.50 ms | 25.0% | 12 | 3.00 MiB |\n"
            "| `decoder` | 20.0 µs | 0.5% | 3 | 512 B |\n");
}

TEST(SectionRenderTest, JsonKeepsRawNumbersAndNamesTheUnits) {
  JsonWriter json;
  write_section_json(json, slow_layers());
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.parse(json.str());
  EXPECT_EQ(std::string_view(root["title"]), "Slowest layers");
  EXPECT_EQ(std::string_view(root["columns"].at(1)["unit"]), "ns");
  EXPECT_EQ(std::string_view(root["columns"].at(2)["unit"]), "share");
  EXPECT_EQ(std::string_view(root["rows"].at(0).at(0)), "encoder|attention");
  EXPECT_DOUBLE_EQ(double(root["rows"].at(0).at(1)), 1'500'000);
  EXPECT_DOUBLE_EQ(double(root["rows"].at(1).at(2)), 0.005);
}

TEST(SectionRenderTest, HtmlIsATableInASectionNamedByItsKey) {
  const std::string html = section_html(slow_layers());
  EXPECT_EQ(html.rfind("<section id=\"slow-layers\"><h2>Slowest layers</h2>", 0), 0u);
  EXPECT_NE(html.find("<tr><td>decoder</td><td>20.0 µs</td><td>0.5%</td><td>3</td><td>512 B</td>"
                      "</tr>"),
            std::string::npos);
}

}  // namespace
}  // namespace tscope::analyzer
