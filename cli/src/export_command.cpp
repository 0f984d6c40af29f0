// `tscope export --chrome OUT.json[.gz] --perfetto OUT.pftrace[.gz] [-q] IN...`: writes any trace
// tensorscope reads as Chrome Trace Event JSON (Kineto's conventions) for Perfetto UI,
// chrome://tracing and HTA, and/or as Perfetto's protobuf trace; gzip when OUT ends in .gz. Several
// traces, or a folder, are the ranks of one run: one JSON with a pid per rank.
// `--detail separate` keeps event detail out of "args" for viewers that key frames on name plus
// args (speedscope).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"
#include "merged_ranks.h"
#include "progress_line.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/trace/chrome_json_writer.h"
#include "tscope/trace/perfetto_writer.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
void add_export_command(CLI::App& app, CommandContext& context) {
  struct Paths {
    std::vector<std::string> inputs;
    std::string chrome;
    std::string perfetto;
    std::string detail = "args";
    bool quiet = false;
  };
  auto paths = std::make_shared<Paths>();
  CLI::App* command = app.add_subcommand(
      "export",
      "Export a trace for other viewers (Chrome Trace Event JSON for Perfetto UI and "
      "chrome://tracing, Perfetto's protobuf trace); several traces or a folder: one file with a "
      "process per rank");
  command->add_option("--chrome", paths->chrome,
                      "Chrome JSON file to write; gzip-compressed when it ends in .gz");
  command->add_option(
      "--perfetto", paths->perfetto,
      "Perfetto protobuf trace to write (.pftrace; gzip-compressed when it ends in .gz), which "
      "Perfetto UI and trace processor load faster and smaller than JSON");

  add_trace_paths(*command, "IN", paths->inputs,
                  "Trace to read (.tsc, Chrome/Kineto JSON, nsys SQLite); several, or a folder, "
                  "for the ranks of one run");
  command
      ->add_option("--detail", paths->detail,
                   "Where event detail (op shapes, tensor ids, correlation ids) goes: 'args' "
                   "(Perfetto UI and chrome://tracing show it) or 'separate' (a member viewers "
                   "ignore, so speedscope groups frames by op name; tscope still reads it)")
      ->check(CLI::IsMember({"args", "separate"}))
      ->capture_default_str();
  add_quiet_flag(*command, paths->quiet);
  command->callback([paths, &context] {
    if (paths->chrome.empty() && paths->perfetto.empty()) {
      std::cerr << "tscope export: name a file to write with --chrome and/or --perfetto\n";
      context.exit_code = kExitBadInput;
      return;
    }
    const bool one_trace =
        paths->inputs.size() == 1 && !std::filesystem::is_directory(paths->inputs.front());
    trace::Trace loaded;
    if (one_trace) {
      loaded = load_trace_with_progress(paths->inputs.front(), paths->quiet);
    } else {
      try {
        loaded = load_merged_ranks(
            analyzer::list_trace_files({paths->inputs.begin(), paths->inputs.end()}), paths->quiet);
      } catch (const std::runtime_error& error) {
        // A folder without traces or two traces of one rank; unreadable files too.
        std::cerr << "tscope export: " << error.what() << "\n";
        context.exit_code = kExitBadInput;
        return;
      }
    }
    std::vector<std::string> written;
    if (!paths->chrome.empty()) {
      trace::ChromeJsonOptions options;
      if (paths->detail == "separate") options.detail = trace::ChromeDetailPlacement::kSeparate;
      const trace::ChromeJsonPart part{loaded};
      trace::write_chrome_json(std::span(&part, 1), paths->chrome, options);
      written.push_back(paths->chrome);
    }
    if (!paths->perfetto.empty()) {
      trace::write_perfetto(loaded, paths->perfetto);
      written.push_back(paths->perfetto);
    }
    const trace::TraceCounts counts = loaded.counts();
    std::cout << fmt::format(
        "wrote {}: {} spans, {} instants, {} counter samples, {} memory "
        "events, {} flows\n",
        fmt::join(written, " and "), counts.spans, counts.instants, counts.counter_samples,
        counts.memory_events, counts.flows);
    if (one_trace) warn_if_cut_off(loaded, paths->inputs.front());
    context.exit_code = kExitOk;
  });
}

}  // namespace tscope::cli
