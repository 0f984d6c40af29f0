// The analyzer's findings (with the multi-rank ones for merged ranks), most costly first; clicking
// one frames its evidence on the timeline.

#include <string>

#include "tscope/analyzer/finding.h"
#include "tscope/report/units.h"
#include "viewer_ui.h"

namespace tscope::gui::app {

void draw_findings_section(TimelineSession& session, const std::string& cross_rank_error) {
  if (!cross_rank_error.empty())
    ImGui::TextWrapped("No multi-rank findings: %s", cross_rank_error.c_str());
  if (session.analysis_running()) {
    ImGui::TextDisabled("Analyzing the trace...");
    return;
  }
  if (!session.report()) {
    ImGui::TextWrapped("Analysis failed: %s", session.report_error().c_str());
    return;
  }
  if (const analyzer::CriticalPath* path = session.report()->critical_path()) {
    bool shown = session.critical_path_shown();
    if (ImGui::Checkbox("Highlight the critical path", &shown)) session.show_critical_path(shown);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Marks in red, under each span, the stretches of every step's critical "
          "path: %s GPU kernels, %s host compute, %s launch.",
          format_percent(path->share(analyzer::PathPart::kKernel)).c_str(),
          format_percent(path->share(analyzer::PathPart::kHostCompute)).c_str(),
          format_percent(path->share(analyzer::PathPart::kLaunch)).c_str());
    }
  }
  const std::vector<analyzer::Finding>& findings = session.report()->findings;
  if (findings.empty()) {
    ImGui::TextDisabled("No findings.");
    return;
  }
  ImGui::BeginChild("findings", ImVec2(0, 200), true);
  for (std::size_t index = 0; index < findings.size(); ++index) {
    const analyzer::Finding& finding = findings[index];
    const std::string label = "[" + std::string(analyzer::to_string(finding.severity)) + "] " +
                              finding.title + "##finding" + std::to_string(index);
    if (ImGui::Selectable(label.c_str())) session.show_finding(index);
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(400);
      ImGui::TextUnformatted(finding.explanation.c_str());
      ImGui::Separator();
      ImGui::TextUnformatted(finding.recommendation.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  ImGui::EndChild();
}

}  // namespace tscope::gui::app
