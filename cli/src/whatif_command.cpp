// `tscope whatif TRACE... [--edit EDIT ...]`: replays each step of a trace over its dependency
// graph with the edits applied (ops or kernels made faster, the wait for input or a
// synchronization removed) and prints each step's measured and predicted time. Without an edit it
// replays the run as it was, which shows how closely the replay follows the trace. `-o` writes the
// simulated run as a trace, to view, diff or export beside the recorded one. Several traces are
// the ranks of one run, replayed together and coupled at their collectives.

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "progress_line.h"
#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/multirank_whatif.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

struct Settings {
  std::vector<std::string> paths;
  std::vector<std::string> edits;
  std::optional<std::string> steps;
  std::string format = "text";
  std::string output;  // the simulated run, when given
  bool quiet = false;
};

void run_whatif(const Settings& settings) {
  // Edits and the output's format are checked before the trace is read: a typo should not cost a
  // large trace's import.
  std::vector<analyzer::WhatIfEdit> edits;
  edits.reserve(settings.edits.size());
  for (const std::string& text : settings.edits)
    edits.push_back(analyzer::parse_edit(text));
  if (!settings.output.empty()) trace::format_for_output(settings.output);
  analyzer::AnalysisOptions options;
  options.step_filter = settings.steps;
  if (settings.paths.size() > 1) {
    if (!settings.output.empty()) {
      throw analyzer::AnalyzerError(
          "-o writes one simulated trace; give one trace, not the ranks of a run");
    }
    // The coupled replay needs every rank at once (its header says why).
    std::vector<trace::Trace> traces;
    traces.reserve(settings.paths.size());
    for (const std::string& path : settings.paths)
      traces.push_back(load_trace_with_progress(path, settings.quiet));
    std::vector<std::unique_ptr<analyzer::AnalysisContext>> contexts;
    std::vector<analyzer::RankInput> ranks;
    for (std::size_t r = 0; r < traces.size(); ++r) {
      contexts.push_back(std::make_unique<analyzer::AnalysisContext>(traces[r], options));
      ranks.push_back({contexts.back().get(), settings.paths[r]});
    }
    const analyzer::MultiRankWhatIfResult result = analyzer::predict_rank_steps(ranks, edits);
    std::cout << (settings.format == "json" ? analyzer::render_rank_whatif_json(result, edits)
                                            : analyzer::render_rank_whatif_text(result, edits));
    return;
  }
  const trace::Trace loaded = load_trace_with_progress(settings.paths.front(), settings.quiet);
  const analyzer::AnalysisContext context(loaded, options);
  const analyzer::WhatIfResult result =
      analyzer::predict_steps(context, edits, {.keep_simulated_trace = !settings.output.empty()});
  if (result.simulated) {
    trace::save_trace(*result.simulated, settings.output);
    if (!settings.quiet)
      std::cerr << "tscope whatif: wrote the simulated run to " << settings.output << "\n";
  }
  std::cout << (settings.format == "json" ? analyzer::render_whatif_json(result, edits)
                                          : analyzer::render_whatif_text(result, edits));
}

}  // namespace

void add_whatif_command(CLI::App& app, CommandContext& context) {
  auto settings = std::make_shared<Settings>();
  CLI::App* command = app.add_subcommand(
      "whatif",
      "Predict each step's time after a fix: replay the steps over their host-GPU dependency "
      "graph with edits applied (without edits: the run as it was)");
  add_trace_paths(*command, "TRACE", settings->paths,
                  "Trace file (.tsc, Chrome/Kineto JSON, Nsight Systems SQLite); several: the "
                  "ranks of one run, replayed together and coupled at their collectives");
  command->add_option("--edit", settings->edits,
                      "A change to replay, repeatable: NAME*F (ops and kernels whose name "
                      "matches the regex NAME take F times their time), op:NAME*F, "
                      "kernel:NAME*F, input-wait*F, workers=N (the data loader on N worker "
                      "threads), remove-sync:NAME, graph-launch:NAME, fuse:NAME1>NAME2>...*F");
  command->add_option("--steps", settings->steps,
                      "Replay only steps whose name matches this regex");
  command->add_option("-o,--output", settings->output,
                      "Write the simulated run as a trace (.tsc, .json[.gz], .pftrace): the "
                      "replayed steps at their predicted times, for view, diff and export");
  command->add_option("--format", settings->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  add_quiet_flag(*command, settings->quiet);
  command->callback([settings, &context] {
    try {
      run_whatif(*settings);
    } catch (const analyzer::AnalyzerError& error) {
      // One trace's errors name it; a multi-rank replay's name the rank where it matters.
      if (settings->paths.size() == 1) {
        std::cerr << "tscope whatif: " << settings->paths.front() << ": " << error.what() << "\n";
      } else {
        std::cerr << "tscope whatif: " << error.what() << "\n";
      }
      context.exit_code = kExitBadInput;
      return;
    }
    context.exit_code = kExitOk;
  });
}

}  // namespace tscope::cli
