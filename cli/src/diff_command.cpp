// `tscope diff BEFORE AFTER`: what changed between two traces of any format the trace layer
// reads, as `tscope analyze` sees each (the same steps and `--steps` selection): the step time,
// the ops and GPU work that contribute to its change, and per-name totals per step. Given a
// folder of a run's ranks instead, it compares the two ranks it holds; with more than two it asks
// for the two to compare.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "progress_line.h"
#include "tscope/analyzer/compare.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/analyzer/render.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

struct DiffOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::optional<std::string> steps;
  std::size_t top = 20;
  bool quiet = false;
};

// The analysis context of one of the two traces; an option it cannot apply (a --steps that selects
// none of its steps) is reported with the file it failed on.
analyzer::AnalysisContext context_of(const trace::Trace& trace, const std::filesystem::path& file,
                                     const analyzer::AnalysisOptions& options) {
  try {
    return analyzer::AnalysisContext(trace, options);
  } catch (const analyzer::AnalyzerError& error) {
    throw analyzer::AnalyzerError(file.string() + ": " + error.what());
  }
}

void run_diff(const DiffOptions& options, CommandContext& context) {
  if (options.format != "text" && options.format != "md" && options.format != "json") {
    throw analyzer::AnalyzerError(
        fmt::format("--format {}: expected text, md or json", options.format));
  }
  const std::vector<std::filesystem::path> files =
      analyzer::list_trace_files({options.paths.begin(), options.paths.end()});
  if (files.size() != 2) {
    throw analyzer::AnalyzerError(
        fmt::format("diff compares two traces, and {} name {}: give two ranks' traces (e.g. the "
                    "straggler and the median rank) "
                    "to compare their per-op times",
                    fmt::join(options.paths, " "), files.size()));
  }
  const trace::Trace before = load_trace_with_progress(files[0], options.quiet);
  const trace::Trace after = load_trace_with_progress(files[1], options.quiet);
  analyzer::AnalysisOptions analysis;
  analysis.step_filter = options.steps;
  const analyzer::Comparison comparison = analyzer::compare_runs(
      context_of(before, files[0], analysis), context_of(after, files[1], analysis),
      files[0].string(), files[1].string());
  if (options.format == "json") {
    std::cout << analyzer::render_json(comparison);
  } else if (options.format == "md") {
    std::cout << analyzer::render_markdown(comparison, options.top);
  } else {
    std::cout << analyzer::render_text(comparison, options.top);
  }
  context.exit_code = kExitOk;
}

}  // namespace

void add_diff_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand(
      "diff",
      "Compare two traces step by step, as `analyze` sees each: the step time, the ops and GPU "
      "work that contribute to its change, and per op and kernel calls and time per step");
  diff->add_option(
          "TRACES", options->paths,
          "Trace before the change and trace after it; or a folder holding two ranks' traces")
      ->required();
  diff->add_option("--steps", options->steps,
                   "Compare only the steps whose names contain a match of this regular "
                   "expression, in both traces (as `analyze --steps`)");
  diff->add_option("--format", options->format, "Output: text, md (pull-request comment) or json");
  diff->add_option("--top", options->top,
                   "Contributors and names shown in text and md, each way (default 20)");
  add_quiet_flag(*diff, options->quiet);
  diff->callback([options, &context] { run_diff(*options, context); });
}

}  // namespace tscope::cli
