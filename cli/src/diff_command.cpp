// `tscope diff BEFORE AFTER`: what changed between two traces of any format the trace layer
// reads, op by op and kernel by kernel, per step. Given a folder of a run's ranks instead, it
// compares the two ranks it holds; with more than two it asks for the two to compare.

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
#include "tscope/analyzer/multirank.h"
#include "tscope/regress/error.h"
#include "tscope/regress/trace_diff.h"
#include "tscope/regress/trace_diff_report.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

struct DiffOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::size_t top = 20;
  bool quiet = false;
};

void run_diff(const DiffOptions& options, CommandContext& context) {
  const std::optional<regress::ReportFormat> format = regress::report_format_named(options.format);
  if (!format)
    throw regress::RegressInputError(
        fmt::format("--format {}: expected text, md or json", options.format));
  const std::vector<std::filesystem::path> files =
      analyzer::list_trace_files({options.paths.begin(), options.paths.end()});
  if (files.size() != 2) {
    throw regress::RegressInputError(
        fmt::format("diff compares two traces, and {} name {}: give two ranks' traces (e.g. the "
                    "straggler and the median rank) "
                    "to compare their per-op times",
                    fmt::join(options.paths, " "), files.size()));
  }
  const trace::Trace before = load_trace_with_progress(files[0], options.quiet);
  const trace::Trace after = load_trace_with_progress(files[1], options.quiet);
  std::cout << regress::render_trace_diff(regress::diff_traces(before, after), *format,
                                          options.top);
  context.exit_code = kExitOk;
}

}  // namespace

void add_diff_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand("diff",
                                      "Compare two traces: per op and kernel, calls and time per "
                                      "step before and after, biggest change first");
  diff->add_option(
          "TRACES", options->paths,
          "Trace before the change and trace after it; or a folder holding two ranks' traces")
      ->required();
  diff->add_option("--format", options->format, "Output: text, md (pull-request comment) or json");
  diff->add_option("--top", options->top, "Rows shown in text and md, each way (default 20)");
  add_quiet_flag(*diff, options->quiet);
  diff->callback([options, &context] { run_diff(*options, context); });
}

}  // namespace tscope::cli
