#pragma once
// How a subcommand of `tscope` plugs into the command line: each command file defines one
// `add_*_command` function that registers its options and a callback on the app.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "exit_codes.h"

namespace tscope::cli {

// A command's callback stores its exit code here; main returns it.
struct CommandContext {
  int exit_code = kExitOk;
};

// The traces a command reads, as the positional option `name`: one or more trace files or folders
// of them (the ranks of one run), each of which must exist.
inline CLI::Option* add_trace_paths(CLI::App& command, const std::string& name,
                                    std::vector<std::string>& paths,
                                    const std::string& description) {
  return command.add_option(name, paths, description)->required()->check(CLI::ExistingPath);
}

void add_analyze_command(CLI::App& app, CommandContext& context);
void add_bench_command(CLI::App& app, CommandContext& context);
void add_diff_command(CLI::App& app, CommandContext& context);
void add_record_command(CLI::App& app, CommandContext& context);
void add_info_command(CLI::App& app, CommandContext& context);
void add_convert_command(CLI::App& app, CommandContext& context);
void add_export_command(CLI::App& app, CommandContext& context);
void add_doctor_command(CLI::App& app, CommandContext& context);
void add_whatif_command(CLI::App& app, CommandContext& context);
void add_view_command(CLI::App& app, CommandContext& context);  // only when built with TSCOPE_GUI

}  // namespace tscope::cli
