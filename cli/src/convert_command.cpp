// `tscope convert IN OUT`: rewrites a trace in the format OUT's extension names; the input format
// is recognised from its content.

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "progress_line.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {

void add_convert_command(CLI::App& app, CommandContext& context) {
  struct Paths {
    std::string input;
    std::string output;
    bool quiet = false;
  };
  auto paths = std::make_shared<Paths>();
  CLI::App* command = app.add_subcommand(
      "convert", "Convert a trace to the format chosen by OUT's extension (e.g. .tsc)");
  command->add_option("IN", paths->input, "Trace to read (format recognised from its content)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("OUT", paths->output, "File to write")->required();
  add_quiet_flag(*command, paths->quiet);
  command->callback([paths, &context] {
    // Reject an unknown output extension before spending time on the input.
    const trace::TraceFormatInfo& output_format = trace::format_for_output(paths->output);
    const trace::Trace loaded = load_trace_with_progress(paths->input, paths->quiet);
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
