// `tscope export --chrome OUT.json[.gz] IN`: writes any trace tensorscope reads as Chrome Trace
// Event JSON (Kineto's conventions) for Perfetto UI, chrome://tracing and HTA; gzip when OUT ends
// in .gz. `--detail separate` keeps event detail out of "args" for viewers that key frames on
// name plus args (speedscope).

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "tscope/trace/chrome_json_writer.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {

void add_export_command(CLI::App& app, CommandContext& context) {
  struct Paths {
    std::string input;
    std::string chrome;
    std::string detail = "args";
  };
  auto paths = std::make_shared<Paths>();
  CLI::App* command = app.add_subcommand(
      "export",
      "Export a trace for other viewers (Chrome Trace Event JSON for Perfetto UI and "
      "chrome://tracing)");
  command
      ->add_option("--chrome", paths->chrome,
                   "Chrome JSON file to write; gzip-compressed when it ends in .gz")
      ->required();
  command->add_option("IN", paths->input, "Trace to read (.tsc, Chrome/Kineto JSON, nsys SQLite)")
      ->required()
      ->check(CLI::ExistingFile);
  command
      ->add_option("--detail", paths->detail,
                   "Where event detail (op shapes, tensor ids, correlation ids) goes: 'args' "
                   "(Perfetto UI and chrome://tracing show it) or 'separate' (a member viewers "
                   "ignore, so speedscope groups frames by op name; tscope still reads it)")
      ->check(CLI::IsMember({"args", "separate"}))
      ->capture_default_str();
  command->callback([paths, &context] {
    const trace::Trace loaded = trace::load_trace(paths->input);
    trace::ChromeJsonOptions options;
    if (paths->detail == "separate") options.detail = trace::ChromeDetailPlacement::kSeparate;
    const trace::ChromeJsonPart part{loaded};
    trace::write_chrome_json(std::span(&part, 1), paths->chrome, options);
    const trace::TraceCounts counts = loaded.counts();
    std::cout << fmt::format(
        "wrote {}: {} spans, {} instants, {} counter samples, {} memory "
        "events, {} flows\n",
        paths->chrome, counts.spans, counts.instants, counts.counter_samples, counts.memory_events,
        counts.flows);
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
