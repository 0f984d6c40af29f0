// `tscope view FILE`: the timeline viewer, in a window or, with --screenshot, rendered offscreen
// into a PNG. A file that cannot be read opens as an error in the window and on stderr.

#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "command.h"
#include "tscope/gui/viewer.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {

void add_view_command(CLI::App& app, CommandContext& context) {
  struct Settings {
    std::string path;
    std::optional<std::string> screenshot;
    gui::ViewerOptions options;
  };
  auto settings = std::make_shared<Settings>();
  CLI::App* command = app.add_subcommand(
      "view", "Open a trace in the timeline viewer (Dear ImGui), or render it into a PNG");
  command
      ->add_option("FILE", settings->path,
                   "Trace file (.tsc, Chrome/Kineto JSON, Nsight Systems SQLite)")
      ->required();
  command->add_option("--screenshot", settings->screenshot,
                      "Render offscreen into this PNG and exit (needs an X display: xvfb-run)");
  command->add_option("--view", settings->options.view_range,
                      "Show START:END, nanoseconds from the trace's first event");
  command->add_option("--select", settings->options.select,
                      "Select the earliest span with exactly this name");
  command->add_flag("--memory-panel", settings->options.memory_panel,
                    "Open the memory panel: live bytes stacked by owner op, scope or category");
  command->callback([settings, &context] {
    gui::ViewerInput input;
    input.source = settings->path;
    try {
      input.trace = trace::load_trace(settings->path);
    } catch (const trace::TraceError& error) {
      input.load_error = error.what();
      std::cerr << "tscope view: " << error.what() << "\n";
    }
    if (settings->screenshot) settings->options.screenshot = *settings->screenshot;
    const bool loaded = input.trace.has_value();
    try {
      gui::run_viewer(std::move(input), settings->options);
    } catch (const gui::ViewerError& error) {
      std::cerr << "tscope view: " << error.what() << "\n";
      // An unreadable file stays the first thing to fix, with or without a display.
      context.exit_code = loaded ? kExitFailure : kExitBadInput;
      return;
    } catch (const std::invalid_argument& error) {
      std::cerr << "tscope view: " << settings->path << ": " << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    context.exit_code = loaded ? kExitOk : kExitBadInput;
  });
}

}  // namespace tscope::cli
