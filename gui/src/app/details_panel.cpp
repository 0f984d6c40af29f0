// The selection details section: every row describe_event gives for the selected event.

#include "tscope/gui/event_description.h"
#include "viewer_ui.h"

namespace tscope::gui::app {

void draw_details_section(TimelineSession& session) {
  if (!session.selection()) {
    ImGui::TextDisabled("Click a span to see its details.");
    return;
  }
  const std::vector<DetailRow> rows = describe_event(session.trace(), *session.selection(),
                                                     session.origin(), session.selection_flows());
  if (!ImGui::BeginTable("details", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    return;
  }
  ImGui::TableSetupColumn("field", ImGuiTableColumnFlags_WidthFixed, 140);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
  for (const DetailRow& row : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(row.key.c_str());
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", row.value.c_str());
  }
  ImGui::EndTable();
}

}  // namespace tscope::gui::app
