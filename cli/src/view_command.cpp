// `tscope view FILE...`: the timeline viewer, in a window or, with --screenshot, rendered offscreen
// into a PNG. A file that cannot be read opens as an error in the window and on stderr. Several
// traces, or a folder, are the ranks of one run, shown in one timeline with each rank's rows
// together under "rank N" names, and the multi-rank analysis's findings beside each trace's own.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"
#include "progress_line.h"
#include "rank_view.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/gui/viewer.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {

void add_view_command(CLI::App& app, CommandContext& context) {
  struct Settings {
    std::vector<std::string> paths;
    std::optional<std::string> screenshot;
    gui::ViewerOptions options;
    bool quiet = false;
  };
  auto settings = std::make_shared<Settings>();
  CLI::App* command = app.add_subcommand(
      "view", "Open a trace in the timeline viewer (Dear ImGui), or render it into a PNG");
  command
      ->add_option("FILE", settings->paths,
                   "Trace file (.tsc, Chrome/Kineto JSON, Nsight Systems SQLite); several, or a "
                   "folder, for the ranks of one run")
      ->required();
  command->add_option("--screenshot", settings->screenshot,
                      "Render offscreen into this PNG and exit (needs an X display: xvfb-run)");
  command->add_option("--view", settings->options.view_range,
                      "Show START:END, nanoseconds from the trace's first event");
  command->add_option("--select", settings->options.select,
                      "Select the earliest span with exactly this name");
  command->add_flag("--memory-panel", settings->options.memory_panel,
                    "Open the memory panel: live bytes stacked by owner op, scope or category");
  add_quiet_flag(*command, settings->quiet);
  command->callback([settings, &context] {
    gui::ViewerInput input;
    const std::string& path = settings->paths.front();
    const bool one_trace = settings->paths.size() == 1 && !std::filesystem::is_directory(path);
    const std::string source =
        one_trace ? path : fmt::format("{}", fmt::join(settings->paths, " "));
    input.source = source;
    try {
      if (one_trace) {
        input.trace = load_trace_with_progress(path, settings->quiet);
      } else {
        RankView ranks = load_rank_view(
            analyzer::list_trace_files({settings->paths.begin(), settings->paths.end()}),
            settings->quiet);
        input.trace = std::move(ranks.trace);
        input.cross_rank_findings = std::move(ranks.findings);
        input.cross_rank_error = std::move(ranks.analysis_error);
        if (!input.cross_rank_error.empty())
          std::cerr << "tscope view: multi-rank analysis: " << input.cross_rank_error << "\n";
      }
    } catch (const std::runtime_error& error) {
      // Unreadable traces, a folder without any, two traces of one rank.
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
      std::cerr << "tscope view: " << source << ": " << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    context.exit_code = loaded ? kExitOk : kExitBadInput;
  });
}

}  // namespace tscope::cli
