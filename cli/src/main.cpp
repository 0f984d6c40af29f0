// Entry point of the `tscope` command: builds the command line from every subcommand and turns
// typed errors into messages and exit codes (library code never exits on its own).

#include <exception>
#include <iostream>

#include "command.h"

int main(int argc, char** argv) {
  using namespace tscope::cli;
  CLI::App app{"tensorscope: record, inspect, analyze and compare performance traces", "tscope"};
  app.set_version_flag("--version", "tscope 0.1.0");
  app.require_subcommand(1);
  CommandContext context;
  add_analyze_command(app, context);
  add_bench_command(app, context);
  add_diff_command(app, context);
  add_record_command(app, context);
  add_info_command(app, context);
  add_convert_command(app, context);
  add_export_command(app, context);
  add_doctor_command(app, context);
#ifdef TSCOPE_VIEWER
  add_view_command(app, context);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 reports --help and --version as "errors" with exit code 0.
    const int code = app.exit(error);
    return code == 0 ? kExitOk : kExitBadInput;
  } catch (const std::exception& error) {
    std::cerr << "tscope: " << error.what() << "\n";
    return kExitBadInput;
  }
  return context.exit_code;
}
