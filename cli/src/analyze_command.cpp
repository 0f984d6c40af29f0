// `tscope analyze FILE`: runs the analyses over a trace of any supported format and prints the
// findings, most costly first, as text, Markdown or the JSON schema of docs/analyzer.md.

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/render.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {

void add_analyze_command(CLI::App& app, CommandContext& context) {
  struct Settings {
    std::string path;
    std::string format = "text";
    std::optional<std::string> steps;
    std::vector<std::string> only;
  };
  auto settings = std::make_shared<Settings>();
  CLI::App* command = app.add_subcommand(
      "analyze", "Find what slows a run down or fills its memory: steps, where the time goes, input "
                 "stalls, copies and syncs, fusion, OOM causes, leaks, launch overhead");
  command->add_option("FILE", settings->path, "Trace file (.tsc, Chrome/Kineto JSON, Nsight Systems SQLite)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--format", settings->format, "Output format")
      ->check(CLI::IsMember({"text", "md", "json"}));
  command->add_option("--steps", settings->steps, "Analyze only steps whose name matches this regex");
  std::string names;
  for (const std::string_view name : analyzer::analysis_names()) names += (names.empty() ? "" : ",") + std::string(name);
  command->add_option("--only", settings->only, "Run only these analyses: " + names)->delimiter(',');
  command->callback([settings, &context] {
    const trace::Trace loaded = trace::load_trace(settings->path);
    analyzer::ReportOptions options;
    options.analysis.step_filter = settings->steps;
    options.only = settings->only;
    analyzer::Report report;
    try {
      report = analyzer::run_report(loaded, options, settings->path);
    } catch (const analyzer::AnalyzerError& error) {
      std::cerr << "tscope analyze: " << settings->path << ": " << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    if (settings->format == "json") {
      std::cout << analyzer::render_json(report);
    } else if (settings->format == "md") {
      std::cout << analyzer::render_markdown(report);
    } else {
      std::cout << analyzer::render_text(report);
    }
    context.exit_code = kExitOk;
  });
}

}  // namespace tscope::cli
