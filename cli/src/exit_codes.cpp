// Exceptions that mean the input was wrong derive from std::runtime_error (every layer's typed
// error does: trace::FormatError and IoError, RegressInputError, AnalyzerError, ...); a
// std::logic_error, std::bad_alloc or any other type means tscope itself went wrong.

#include "exit_codes.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>

namespace tscope::cli {
namespace {

constexpr char kReportRequest[] =
    "tscope: internal error (a bug in tscope); please report it with the command line and the "
    "input file\n";

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(undefined_behavior_sanitizer)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
#else
constexpr bool kSanitizerBuild = false;
#endif

// Async-signal-safe: only write(2) and _exit(2).
void on_crash(int) {
  const ssize_t written = write(STDERR_FILENO, kReportRequest, sizeof kReportRequest - 1);
  static_cast<void>(written);
  _exit(kExitInternalError);
}

void on_terminate() {
  on_crash(0);
}

}  // namespace

int exit_code_for_current_exception(std::ostream& out) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    out << "tscope: internal error: out of memory (inputs are meant to be read in bounded "
           "memory); please report it with the command line and the input file\n";
    return kExitInternalError;
  } catch (const std::runtime_error& error) {
    out << "tscope: " << error.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    out << "tscope: internal error: " << error.what()
        << "; please report it with the command line and the input file\n";
    return kExitInternalError;
  } catch (...) {
    out << kReportRequest;
    return kExitInternalError;
  }
}

void install_crash_handlers() {
  if (kSanitizerBuild) return;
  std::set_terminate(on_terminate);
  struct sigaction action {};
  action.sa_handler = on_crash;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    sigaction(signal, &action, nullptr);
}

}  // namespace tscope::cli
