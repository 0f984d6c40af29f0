// `tscope convert IN OUT [--range START:END | --steps A:B]`: rewrites a trace in the format OUT's
// extension names, cut to a window when asked; the input format is recognised from its content.

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "command.h"
#include "progress_line.h"
#include "tscope/trace/trace_cut.h"
#include "tscope/trace/trace_io.h"
#include "window_options.h"

namespace tscope::cli {

void add_convert_command(CLI::App& app, CommandContext& context) {
  struct Paths {
    std::string input;
    std::string output;
    bool quiet = false;
    std::string range;
    std::string steps;
  };
  auto paths = std::make_shared<Paths>();
  CLI::App* command = app.add_subcommand(
      "convert", "Convert a trace to the format chosen by OUT's extension (e.g. .tsc)");
  command->add_option("IN", paths->input, "Trace to read (format recognised from its content)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("OUT", paths->output, "File to write")->required();
  add_quiet_flag(*command, paths->quiet);
  CLI::Option* range = command->add_option(
      "--range", paths->range,
      "Keep only START:END, offsets from the trace's start in seconds or with a unit "
      "(1.5s:2s, 200ms:, :3): every span that overlaps it, the flows between kept events, and "
      "the counters and live allocations at its start");
  command
      ->add_option("--steps", paths->steps,
                   "Keep only training steps A to B (A:B, as numbered in 'step N' or "
                   "'ProfilerStep#N'), cut as --range does")
      ->excludes(range);
  command->callback([paths, &context] {
    // Reject an unknown output extension or a malformed window before spending time on the input.
    const trace::TraceFormatInfo& output_format = trace::format_for_output(paths->output);
    std::optional<TimeRange> time_range;
    std::optional<StepRange> step_range;
    try {
      if (!paths->range.empty()) time_range = parse_time_range(paths->range);
      if (!paths->steps.empty()) step_range = parse_step_range(paths->steps);
    } catch (const WindowSyntaxError& error) {
      std::cerr << "tscope convert: " << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    trace::Trace loaded = load_trace_with_progress(paths->input, paths->quiet);
    try {
      if (time_range) loaded = trace::cut_trace(loaded, window_in(loaded, *time_range));
      if (step_range) loaded = trace::cut_trace(loaded, window_of_steps(loaded, *step_range));
    } catch (const WindowSyntaxError& error) {
      std::cerr << "tscope convert: " << paths->input << ": " << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    output_format.save(loaded, paths->output);
    const trace::TraceCounts counts = loaded.counts();
    std::cout << fmt::format(
        "wrote {} ({}): {} spans, {} instants, {} counter samples, {} memory "
        "events, {} flows\n",
        paths->output, output_format.name, counts.spans, counts.instants, counts.counter_samples,
        counts.memory_events, counts.flows);
    if (loaded.metadata().lost_bytes != 0) {
      std::cerr << fmt::format(
          "tscope: warning: {} was cut off; {} bytes after its last whole "
          "record were lost\n",
          paths->input, loaded.metadata().lost_bytes);
    }
    context.exit_code = kExitOk;
  });
}

}  // namespace tscope::cli
