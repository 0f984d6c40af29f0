// Builds the command line from every subcommand and turns typed errors into messages and exit
// codes (library code never exits on its own).

#include "tscope_main.h"

#include <iostream>

#include "command.h"
#include "exit_codes.h"

namespace tscope::cli {

int tscope_main(int argc, const char* const* argv) {
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
  add_whatif_command(app, context);
#ifdef TSCOPE_VIEWER
  add_view_command(app, context);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 reports --help and --version as "errors" with exit code 0.
    const int code = app.exit(error);
    return code == 0 ? kExitOk : kExitBadInput;
  } catch (...) {
    return exit_code_for_current_exception(std::cerr);
  }
  return context.exit_code;
}

}  // namespace tscope::cli
