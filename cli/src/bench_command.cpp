// `tscope bench compare BASE.json NEW.json` and `tscope bench ratio FILE`: regression checks over
// Google Benchmark JSON, for people and for CI (exit 1 on a regression, 2 on bad input).

#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <string>

#include "command.h"
#include "tscope/regress/comparison.h"
#include "tscope/regress/error.h"
#include "tscope/regress/gbench_json_reader.h"
#include "tscope/regress/policy.h"
#include "tscope/regress/reference_ratio.h"
#include "tscope/regress/report.h"

namespace tscope::cli {
namespace {

struct CompareOptions {
  std::string base_path;
  std::string new_path;
  std::optional<double> alpha;
  std::optional<std::string> threshold;
  std::optional<std::string> config_path;
  std::string format = "text";
  std::string metric = "real_time";
};

struct RatioOptions {
  std::string path;
  std::string numerator;
  std::string denominator;
  double max_ratio = 0.0;
  std::string metric = "real_time";
};

regress::ComparePolicy policy_from(const CompareOptions& options) {
  regress::ComparePolicy policy = options.config_path
                                      ? regress::read_policy_config(*options.config_path)
                                      : regress::ComparePolicy{};
  if (options.alpha) policy.alpha = *options.alpha;
  if (options.threshold)
    policy.default_threshold = regress::parse_threshold(*options.threshold, "--threshold");
  return policy;
}

void run_compare(const CompareOptions& options, CommandContext& context) {
  const std::optional<regress::ReportFormat> format = regress::report_format_named(options.format);
  if (!format)
    throw regress::RegressInputError(
        fmt::format("--format {}: expected text, md or json", options.format));
  const regress::ComparePolicy policy = policy_from(options);
  const regress::BenchmarkResults base = regress::read_gbench_json(options.base_path);
  const regress::BenchmarkResults candidate = regress::read_gbench_json(options.new_path);
  const regress::ComparisonReport report =
      regress::compare_results(base, candidate, regress::metric_named(options.metric), policy);
  std::cout << regress::render_report(report, *format);
  context.exit_code = report.regressed() ? kExitFailure : kExitOk;
}

void run_ratio(const RatioOptions& options, CommandContext& context) {
  const regress::BenchmarkResults results = regress::read_gbench_json(options.path);
  const regress::ReferencePairing pairing(options.numerator, options.denominator);
  const std::vector<regress::ReferenceRatio> ratios =
      regress::reference_ratios(results, regress::metric_named(options.metric), pairing);
  if (ratios.empty()) {
    throw regress::RegressInputError(fmt::format("{}: no benchmark matches --numerator \"{}\"",
                                                 options.path, options.numerator));
  }
  bool exceeded = false;
  for (const regress::ReferenceRatio& ratio : ratios) {
    const bool within = ratio.ratio <= options.max_ratio;
    exceeded = exceeded || !within;
    std::cout << fmt::format("{} / {} = {:.4f} (limit {:.4f}) {}\n", ratio.name, ratio.reference,
                             ratio.ratio, options.max_ratio, within ? "ok" : "EXCEEDED");
  }
  context.exit_code = exceeded ? kExitFailure : kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, CommandContext& context) {
  CLI::App* bench =
      app.add_subcommand("bench", "Regression checks over Google Benchmark JSON results");
  bench->require_subcommand(1);

  auto compare_options = std::make_shared<CompareOptions>();
  CLI::App* compare = bench->add_subcommand("compare",
                                            "Compare two runs: median change and Mann-Whitney U "
                                            "test per benchmark; exit 1 on a regression");
  compare
      ->add_option("base", compare_options->base_path, "Baseline results (--benchmark_format=json)")
      ->required();
  compare->add_option("new", compare_options->new_path, "New results to judge against the baseline")
      ->required();
  compare
      ->add_option("--alpha", compare_options->alpha,
                   "Significance level of the U test (default 0.05)")
      ->check(CLI::Range(0.0, 1.0));
  compare->add_option(
      "--threshold", compare_options->threshold,
      "Allowed slowdown for benchmarks no config rule matches, e.g. 5% (default) or none");
  compare->add_option("--config", compare_options->config_path,
                      "Policy file: alpha, per-pattern thresholds, normalize");
  compare->add_option("--format", compare_options->format,
                      "Output: text, md (pull-request comment) or json");
  compare->add_option("--metric", compare_options->metric,
                      "real_time (default), cpu_time, or a counter such as items_per_second");
  compare->callback([compare_options, &context] { run_compare(*compare_options, context); });

  auto ratio_options = std::make_shared<RatioOptions>();
  CLI::App* ratio = bench->add_subcommand("ratio",
                                          "Check ratios measured in one run (engine over raw BLAS) "
                                          "against a limit; exit 1 when one exceeds it");
  ratio->add_option("file", ratio_options->path, "Results (--benchmark_format=json)")->required();
  ratio
      ->add_option("--numerator", ratio_options->numerator,
                   "Regex matching whole benchmark names, e.g. BM_Engine(.*)")
      ->required();
  ratio
      ->add_option("--denominator", ratio_options->denominator,
                   "Reference name, with $1.. from the regex, e.g. BM_Blas$1")
      ->required();
  ratio->add_option("--max", ratio_options->max_ratio, "Largest allowed median ratio, e.g. 1.10")
      ->required();
  ratio->add_option("--metric", ratio_options->metric,
                    "real_time (default), cpu_time or a counter");
  ratio->callback([ratio_options, &context] { run_ratio(*ratio_options, context); });
}

}  // namespace tscope::cli
