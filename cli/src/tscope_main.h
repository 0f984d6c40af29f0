#pragma once
// The whole `tscope` command as a function: main() calls it, and so does the command-line fuzzer
// (fuzz/cli_args_fuzzer.cpp), which must see exactly the parsing and error handling users get.

namespace tscope::cli {

// Parses the arguments, runs the chosen subcommand and returns its exit code; every exception is
// turned into a message on stderr and an exit code (see exit_codes.h).
int tscope_main(int argc, const char* const* argv);

}  // namespace tscope::cli
