// Ops, kernels and copies by total time, for the visible range or the selected span, computed
// when asked: a range can hold the whole trace, too much to recount every frame.

#include "tscope/report/units.h"
#include "viewer_ui.h"

namespace tscope::gui::app {

namespace {

constexpr std::size_t kShownRows = 50;

}  // namespace

void draw_statistics_section(TimelineSession& session) {
  if (ImGui::Button("Visible range")) session.compute_statistics_for_view();
  ImGui::SameLine();
  ImGui::BeginDisabled(!session.selection_range());
  if (ImGui::Button("Selection")) session.compute_statistics_for_selection();
  ImGui::EndDisabled();
  const auto& table = session.statistics();
  if (!table) return;
  ImGui::Text("%s, %s: %zu names", table->scope.c_str(),
              format_duration(table->range.length()).c_str(), table->rows.size());
  if (!ImGui::BeginTable(
          "statistics", 4,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
          ImVec2(0, 240))) {
    return;
  }
  ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("count", ImGuiTableColumnFlags_WidthFixed, 50);
  ImGui::TableSetupColumn("total", ImGuiTableColumnFlags_WidthFixed, 70);
  ImGui::TableSetupColumn("longest", ImGuiTableColumnFlags_WidthFixed, 70);
  ImGui::TableHeadersRow();
  const std::size_t shown = std::min(kShownRows, table->rows.size());
  for (std::size_t index = 0; index < shown; ++index) {
    const SpanStatistic& row = table->rows[index];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const std::string_view name = session.trace().string(row.name);
    ImGui::TextUnformatted(name.data(), name.data() + name.size());
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(row.count));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_duration(row.total).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_duration(row.longest).c_str());
  }
  ImGui::EndTable();
}

}  // namespace tscope::gui::app
