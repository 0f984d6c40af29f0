// `tscope doctor`: says whether CUDA is usable here and, for each failure, what to do. The
// checks live in tscope_doctor; this file only picks the output format and the exit code.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "tscope/doctor/doctor.h"
#include "tscope/doctor/render.h"

namespace tscope::cli {

void add_doctor_command(CLI::App& app, CommandContext& context) {
  struct Settings {
    bool json = false;
    bool skip_bandwidth = false;
    std::vector<std::string> binaries;
  };
  auto settings = std::make_shared<Settings>();
  CLI::App* command = app.add_subcommand("doctor",
                                         "Diagnose whether CUDA is usable here and what to do when "
                                         "not (exit 0: a GPU is usable, 1: not)");
  command->add_flag("--json", settings->json,
                    "Print the report as JSON (fields in docs/doctor.md)");
  command->add_flag("--no-bandwidth", settings->skip_bandwidth,
                    "Skip the host-to-device copy measurement");
  command
      ->add_option("--binary", settings->binaries,
                   "Check the GPU code of this ELF file (repeatable) instead of tscope's own")
      ->check(CLI::ExistingFile);
  command->callback([settings, &context] {
    doctor::DoctorOptions options;
    options.binaries.assign(settings->binaries.begin(), settings->binaries.end());
    options.measure_bandwidth = !settings->skip_bandwidth;
    const doctor::Report report = doctor::diagnose(options);
    std::cout << (settings->json ? doctor::render_json(report) : doctor::render_text(report));
    context.exit_code = report.gpu_usable() ? kExitOk : kExitFailure;
  });
}

}  // namespace tscope::cli
