// `tscope diff BEFORE AFTER`: what changed between two traces of any format the trace layer
// reads, op by op and kernel by kernel, per step.

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "command.h"
#include "tscope/regress/error.h"
#include "tscope/regress/trace_diff.h"
#include "tscope/regress/trace_diff_report.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

struct DiffOptions {
  std::string before_path;
  std::string after_path;
  std::string format = "text";
  std::size_t top = 20;
};

void run_diff(const DiffOptions& options, CommandContext& context) {
  const std::optional<regress::ReportFormat> format = regress::report_format_named(options.format);
  if (!format) throw regress::RegressInputError(fmt::format("--format {}: expected text, md or json", options.format));
  const trace::Trace before = trace::load_trace(options.before_path);
  const trace::Trace after = trace::load_trace(options.after_path);
  std::cout << regress::render_trace_diff(regress::diff_traces(before, after), *format, options.top);
  context.exit_code = kExitOk;
}

}  // namespace

void add_diff_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand(
      "diff", "Compare two traces: per op and kernel, calls and time per step before and after, biggest change first");
  diff->add_option("before", options->before_path, "Trace before the change")->required();
  diff->add_option("after", options->after_path, "Trace after the change")->required();
  diff->add_option("--format", options->format, "Output: text, md (pull-request comment) or json");
  diff->add_option("--top", options->top, "Rows shown in text and md, each way (default 20)");
  diff->callback([options, &context] { run_diff(*options, context); });
}

}  // namespace tscope::cli
