#pragma once
// `tscope view`: a trace (or the error that kept it from loading) in a Dear ImGui window, or one
// frame of it rendered offscreen into a PNG for screenshots and tests.

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tscope/analyzer/finding.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

// The window, OpenGL or the PNG could not be set up or written.
class ViewerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ViewerInput {
  std::string source;  // the file name, shown in the title
  std::optional<trace::Trace> trace;
  std::string load_error;  // shown in the window when `trace` is absent
  // The ranks of one run: the multi-rank analysis's findings, listed with the trace's own, and
  // why there are none when it failed.
  std::vector<analyzer::Finding> cross_rank_findings;
  std::string cross_rank_error;
};

struct ViewerOptions {
  // "START:END", nanoseconds from the trace's first event; the whole trace when absent.
  std::optional<std::string> view_range;
  // Selects the earliest span with exactly this name.
  std::optional<std::string> select;
  // Opens the memory panel (closed otherwise: its series is built when first opened).
  bool memory_panel = false;
  // Render offscreen into this PNG instead of opening a window.
  std::optional<std::filesystem::path> screenshot;
};

// Opens the viewer and returns when its window closes, or writes the screenshot. Throws
// ViewerError (no display, no OpenGL, unwritable PNG) and std::invalid_argument (a malformed
// view range, a selected name the trace lacks).
void run_viewer(ViewerInput input, const ViewerOptions& options);

}  // namespace tscope::gui
