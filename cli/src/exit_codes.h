#pragma once
// How failures become exit codes. Bad input and wrong arguments exit 2 with a message naming the
// file, the offset and what was wrong (the typed errors carry them); anything else that escapes a
// command is a bug in tscope and exits 3 with a short request for a report, never a stack trace.

#include <ostream>

namespace tscope::cli {

// The exit codes of every subcommand, returned from main as ints. Commands with a verdict (bench
// compare, doctor) add their own meaning to kExitFailure.
enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitInternalError = 3 };

// Call inside a catch block: writes one line about the exception in flight to `out` and returns
// the exit code for it.
int exit_code_for_current_exception(std::ostream& out);

// Turns a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT from a failed assertion) and
// std::terminate into the exit code and message of an internal error. Not installed in sanitizer
// builds, whose own handlers must print their reports for the tests and fuzzers.
void install_crash_handlers();

}  // namespace tscope::cli
