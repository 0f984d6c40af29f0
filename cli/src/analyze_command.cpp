// `tscope analyze FILE...`: runs the analyses over a trace of any supported format and prints the
// findings, most costly first, as text, Markdown, the JSON schema of docs/analyzer.md or one
// self-contained HTML page with charts. Several
// traces or a folder of them are the ranks of one distributed run: each is reduced on its own,
// then analyzed across ranks (collectives, stragglers, overlap).

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "cpu_peak.h"
#include "progress_line.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/analyzer/render.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

struct Settings {
  std::vector<std::string> paths;
  std::string format = "text";
  std::optional<std::string> steps;
  std::vector<std::string> only;
  unsigned jobs = 0;
  std::string cpu_peak;  // "measure", or empty
  bool quiet = false;
};

template <typename AnyReport>
void print_report(const AnyReport& report, const std::string& format) {
  if (format == "json") {
    std::cout << analyzer::render_json(report);
  } else if (format == "md") {
    std::cout << analyzer::render_markdown(report);
  } else {
    std::cout << analyzer::render_text(report);
  }
}

void analyze_one(const Settings& settings) {
  const std::string& path = settings.paths.front();
  const trace::Trace loaded = load_trace_with_progress(path, settings.quiet);
  analyzer::ReportOptions options;
  options.analysis.step_filter = settings.steps;
  options.only = settings.only;
  if (settings.cpu_peak == "measure") {
    const CpuPeak peak = measure_cpu_peak();
    options.analysis.cpu_peak_flops = peak.flops;
    options.analysis.cpu_peak_bytes_per_second = peak.bytes_per_second;
    std::cerr << "tscope analyze: this CPU's measured peak: " << peak.flops / 1e9
              << " GFLOP/s (OpenBLAS sgemm), " << peak.bytes_per_second / 1e9 << " GB/s (memcpy)\n";
  }
  const analyzer::Report report = analyzer::run_report(loaded, options, path);
  if (settings.format == "html") {
    std::cout << analyzer::render_html(report, analyzer::compute_report_charts(loaded, options));
  } else {
    print_report(report, settings.format);
  }
}

void analyze_ranks(const Settings& settings) {
  if (!settings.only.empty())
    throw analyzer::AnalyzerError("--only selects analyses of one trace, not of several ranks");
  if (!settings.cpu_peak.empty())
    throw analyzer::AnalyzerError(
        "--cpu-peak is for the roofline of one trace, not of several ranks");
  const std::vector<std::filesystem::path> files =
      analyzer::list_trace_files({settings.paths.begin(), settings.paths.end()});
  analyzer::AnalysisOptions options;
  options.step_filter = settings.steps;
  const analyzer::MultiRankReport report =
      analyzer::analyze_ranks(analyzer::summarize_trace_files(files, options, settings.jobs));
  if (settings.format == "html") {
    std::cout << analyzer::render_html(report);
  } else {
    print_report(report, settings.format);
  }
}

}  // namespace

void add_analyze_command(CLI::App& app, CommandContext& context) {
  auto settings = std::make_shared<Settings>();
  CLI::App* command = app.add_subcommand(
      "analyze",
      "Find what slows a run down or fills its memory: steps, where the time goes, input "
      "stalls, copies and syncs, fusion, OOM causes, leaks, launch overhead; across the ranks of a "
      "distributed run, collective skew, stragglers and communication overlap");
  add_trace_paths(*command, "FILE", settings->paths,
                  "Trace file (.tsc, Chrome/Kineto JSON, Nsight Systems SQLite); several, or a "
                  "folder, for the "
                  "ranks of one run");
  command->add_option("--format", settings->format, "Output format")
      ->check(CLI::IsMember({"text", "md", "json", "html"}));
  command
      ->add_option("--cpu-peak", settings->cpu_peak,
                   "\"measure\": time this machine's sgemm and memory bandwidth for the roofline "
                   "of a CPU trace (run it where the trace was recorded)")
      ->check(CLI::IsMember({"measure"}));
  command->add_option("--steps", settings->steps,
                      "Analyze only steps whose name matches this regex");
  std::string names;
  for (const analyzer::Analysis* analysis : analyzer::analyses())
    names += (names.empty() ? "" : ",") + std::string(analysis->name);
  command->add_option("--only", settings->only, "Run only these analyses: " + names)
      ->delimiter(',');
  command->add_option("--jobs", settings->jobs, "Ranks reduced at a time (default: one per core)");
  add_quiet_flag(*command, settings->quiet);
  command->callback([settings, &context] {
    const bool one_trace =
        settings->paths.size() == 1 && !std::filesystem::is_directory(settings->paths.front());
    try {
      if (one_trace) {
        analyze_one(*settings);
      } else {
        analyze_ranks(*settings);
      }
    } catch (const analyzer::AnalyzerError& error) {
      std::cerr << "tscope analyze: " << (one_trace ? settings->paths.front() + ": " : "")
                << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    context.exit_code = kExitOk;
  });
}

}  // namespace tscope::cli
