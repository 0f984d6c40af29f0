#include "tscope/gui/viewer.h"

#include <memory>
#include <stdexcept>

#include "imgui_window.h"
#include "offscreen_target.h"
#include "tscope/gui/selection.h"
#include "viewer_ui.h"

namespace tscope::gui {

namespace {

// ImGui sizes auto-fitted windows and tables over its first frames; the third is settled.
constexpr int kScreenshotFrames = 3;

std::unique_ptr<TimelineSession> open_session(ViewerInput& input, const ViewerOptions& options) {
  if (!input.trace) return nullptr;
  auto session = std::make_unique<TimelineSession>(std::move(*input.trace), input.source,
                                                   std::move(input.cross_rank_findings));
  if (options.view_range) {
    session->set_range(parse_time_range(*options.view_range, session->origin()));
  }
  if (options.select) {
    const auto found = find_span_named(session->trace(), *options.select);
    if (!found) {
      throw std::invalid_argument("no span named '" + *options.select + "' in " + input.source);
    }
    session->select(found);
  }
  return session;
}

}  // namespace

void run_viewer(ViewerInput input, const ViewerOptions& options) {
  const std::unique_ptr<TimelineSession> session = open_session(input, options);
  app::UiState state;
  state.source = input.source;
  state.session = session.get();
  state.load_error = input.load_error;
  state.cross_rank_error = input.cross_rank_error;
  state.memory.open_at_start = options.memory_panel;
  const bool offscreen = options.screenshot.has_value();
  app::ImGuiWindow window("tscope view - " + input.source, kScreenshotWidth, kScreenshotHeight,
                          !offscreen);
  if (offscreen) {
    const app::OffscreenTarget target(kScreenshotWidth, kScreenshotHeight);
    if (session) session->wait_for_analysis();
    for (int frame = 0; frame < kScreenshotFrames; ++frame) {
      window.begin_frame(false);
      app::draw_viewer(state);
      target.bind();
      window.render();
    }
    target.write_png(*options.screenshot);
    return;
  }
  while (!window.should_close()) {
    window.begin_frame(true);
    app::draw_viewer(state);
    window.render();
    window.present();
  }
}

}  // namespace tscope::gui
