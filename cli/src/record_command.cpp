// `tscope record [-o FILE] -- CMD ARGS...`: runs any program under capture. The program's NVTX
// calls load libtscope_inject.so through NVTX_INJECTION64_PATH, and its CUDA initialisation
// through CUDA_INJECTION64_PATH (GPU capture), which records into FILE; a
// program that links tensorscope records natively into the same file instead. tscope waits,
// forwards SIGINT/SIGTERM, and exits with the program's own code (128+signal when it was
// killed, 127 when it could not be started, as a shell does). A capture window (record_window.h)
// is applied by the program's session as it runs.

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "command.h"
#include "record_window.h"
#include "tscope/profiler/clock.h"
#include "tscope/profiler/environment.h"
#include "tscope/profiler/gpu_capture.h"
#include "tscope/profiler/output_name.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/capture_window.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_io.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::cli {
namespace {

constexpr int kExitCannotStart = 127;
constexpr int kExitSignalBase = 128;
constexpr std::string_view kInjectLibraryName = "libtscope_inject.so";
constexpr const char* kInjectLibraryVariable = "TSCOPE_INJECT_LIBRARY";
// The loader variables that point a program at the injection library: NVTX loads it on the first
// NVTX call, the CUDA driver during cuInit (for GPU capture).
constexpr std::string_view kInjectionVariables[] = {"NVTX_INJECTION64_PATH",
                                                    "CUDA_INJECTION64_PATH"};

class RecordError : public std::runtime_error {
 public:
  RecordError(const std::string& message, int exit_code)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

std::filesystem::path find_inject_library() {
  if (const char* configured = std::getenv(kInjectLibraryVariable); configured != nullptr) {
    if (!std::filesystem::exists(configured)) {
      throw RecordError(fmt::format("{}={} does not exist", kInjectLibraryVariable, configured),
                        kExitFailure);
    }
    return std::filesystem::absolute(configured);
  }
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path candidates[] = {
      self.parent_path() / kInjectLibraryName,
      self.parent_path() / ".." / "lib" / kInjectLibraryName};
  for (const auto& candidate : candidates) {
    if (std::filesystem::exists(candidate)) return std::filesystem::canonical(candidate);
  }
  throw RecordError(fmt::format("cannot find {} next to {} or in ../lib; set {} to its path",
                                kInjectLibraryName, self.string(), kInjectLibraryVariable),
                    kExitFailure);
}

// How the recorded program's session buffers and flushes (--buffer-mb, --flush-ms); zero leaves
// the session's default.
struct SessionSettings {
  std::uint64_t buffer_mb = 0;
  std::uint64_t flush_ms = 0;
};

// The child's environment: ours, minus any earlier recording's variables, plus this one's. The
// pid entry is a fixed-width slot the child fills in after fork (it cannot know its pid before).
class ChildEnvironment {
 public:
  ChildEnvironment(const std::filesystem::path& library, const std::filesystem::path& output,
                   const SessionSettings& session, const std::vector<std::string>& window) {
    auto ours = [](std::string_view entry) {
      const std::string_view name = entry.substr(0, entry.find('='));
      for (const std::string_view variable : kInjectionVariables) {
        if (name == variable) return true;
      }
      for (const std::string_view variable : profiler::kRecordVariables) {
        if (name == variable) return true;
      }
      return false;
    };
    for (char** entry = environ; *entry != nullptr; ++entry) {
      if (!ours(*entry)) entries_.emplace_back(*entry);
    }
    for (const std::string_view variable : kInjectionVariables) {
      entries_.push_back(fmt::format("{}={}", variable, library.string()));
    }
    entries_.push_back(fmt::format("{}={}", profiler::kRecordOutputVariable, output.string()));
    if (session.buffer_mb != 0) {
      entries_.push_back(
          fmt::format("{}={}", profiler::kRecordBufferBytesVariable, session.buffer_mb << 20));
    }
    if (session.flush_ms != 0) {
      entries_.push_back(fmt::format("{}={}", profiler::kRecordFlushMsVariable, session.flush_ms));
    }
    entries_.insert(entries_.end(), window.begin(), window.end());
    entries_.push_back(fmt::format("{}={:20}", profiler::kRecordPidVariable, ""));
    for (auto& entry : entries_)
      pointers_.push_back(entry.data());
    pointers_.push_back(nullptr);
  }

  // Async-signal-safe: writes the calling process's pid into the reserved slot.
  void set_pid_in_child() {
    std::string& entry = entries_[entries_.size() - 1];
    char* slot = entry.data() + profiler::kRecordPidVariable.size() + 1;
    char digits[24];
    int count = 0;
    for (auto pid = static_cast<unsigned long>(getpid()); pid != 0 || count == 0; pid /= 10) {
      digits[count++] = static_cast<char>('0' + pid % 10);
    }
    for (int i = 0; i < count; ++i)
      slot[i] = digits[count - 1 - i];
    slot[count] = '\0';
  }

  char** envp() { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

volatile sig_atomic_t recorded_child = 0;

void forward_to_child(int signal_number) {
  if (recorded_child > 0) kill(static_cast<pid_t>(recorded_child), signal_number);
}

void forward_termination_signals() {
  struct sigaction forward {};
  forward.sa_handler = forward_to_child;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGINT, &forward, nullptr);
  sigaction(SIGTERM, &forward, nullptr);
  sigaction(SIGHUP, &forward, nullptr);
}

// Runs `command` and returns its wait status. Throws RecordError (exit 127) when it cannot start.
int run_child(const std::vector<std::string>& command, ChildEnvironment& environment) {
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const auto& argument : command)
    argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);

  // exec failures come back through this pipe; a successful exec closes it.
  int exec_status[2];
  if (pipe2(exec_status, O_CLOEXEC) != 0) {
    throw RecordError(fmt::format("pipe: {}", std::strerror(errno)), kExitFailure);
  }
  // The signals to forward stay blocked until the child's pid is stored: one that arrives in
  // between (the program may start and be told to stop before this process runs again, on a
  // loaded machine) waits and is forwarded, instead of finding no child and being lost.
  sigset_t forwarded;
  sigset_t unblocked;
  sigemptyset(&forwarded);
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&forwarded, signal_number);
  pthread_sigmask(SIG_BLOCK, &forwarded, &unblocked);
  forward_termination_signals();
  const pid_t child = fork();
  if (child < 0) {
    pthread_sigmask(SIG_SETMASK, &unblocked, nullptr);
    throw RecordError(fmt::format("fork: {}", std::strerror(errno)), kExitFailure);
  }
  if (child == 0) {
    close(exec_status[0]);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    // The program starts with the mask this process had (exec keeps it).
    pthread_sigmask(SIG_SETMASK, &unblocked, nullptr);
    environment.set_pid_in_child();
    execvpe(argv[0], argv.data(), environment.envp());
    const int error = errno;
    (void)!write(exec_status[1], &error, sizeof error);
    _exit(kExitCannotStart);
  }
  recorded_child = child;
  pthread_sigmask(SIG_SETMASK, &unblocked, nullptr);
  close(exec_status[1]);
  int exec_error = 0;
  ssize_t got = 0;
  while ((got = read(exec_status[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  close(exec_status[0]);

  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR)
      throw RecordError(fmt::format("waitpid: {}", std::strerror(errno)), kExitFailure);
  }
  recorded_child = 0;
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    throw RecordError(
        fmt::format("cannot start {}: {}", command.front(), std::strerror(exec_error)),
        kExitCannotStart);
  }
  return status;
}

// A program that never called NVTX (and does not link tensorscope) wrote nothing; the trace
// still names the process, so every run leaves a file.
void write_empty_trace(const std::filesystem::path& output, const std::string& program) {
  trace::TscWriter writer(output, {.source_format = "tscope-profiler"});
  trace::Process process;
  process.name = writer.intern(std::filesystem::path(program).filename().string());
  writer.add_process(process);
  writer.set_metadata_value(
      "note", "the program recorded no events (it made no NVTX call and did not initialise CUDA)");
  writer.close();
}

void report(std::ostream& out, const std::filesystem::path& output) {
  try {
    const trace::Trace recorded = trace::load_trace(output);
    const trace::TraceCounts counts = recorded.counts();
    const trace::TraceMetadata& metadata = recorded.metadata();
    out << fmt::format(
        "tscope record: wrote {}: {} spans, {} instants, {} counter samples, {} memory events, "
        "{} dropped\n",
        output.string(), counts.spans, counts.instants, counts.counter_samples,
        counts.memory_events, metadata.dropped_events);
    // A writer stopped by a full disk, a quota or the file size limit leaves the file ending in an
    // unfinished chunk: what it held is lost, and a reader of the file must hear so.
    if (metadata.lost_bytes > 0 || metadata.lost_records > 0) {
      out << fmt::format(
          "tscope record: the trace is cut short: its last {} bytes ({} records) are an "
          "unfinished chunk and are lost, as the file could not grow (a full disk, a quota or "
          "the file size limit, ulimit -f); the events above were written before the cut\n",
          metadata.lost_bytes, metadata.lost_records);
    }
  } catch (const trace::TraceError& error) {
    out << fmt::format("tscope record: the trace {} cannot be read back: {}\n", output.string(),
                       error.what());
  }
}

// -o with %r (the launcher's rank), %p (this tscope's pid) and %h (the host) filled in, so that
// `mpirun -np N tscope record -o run-%r.tsc -- PROGRAM` writes one trace per rank.
std::filesystem::path expand_output(const std::filesystem::path& output) {
  try {
    return profiler::expand_output_name(output.string(), profiler::this_process_output_fields());
  } catch (const profiler::ProfilerError& error) {
    throw RecordError(fmt::format("-o {}: {}", output.string(), error.what()), kExitBadInput);
  }
}

// Says which part of the run the program's session captured, as the trace records it.
void report_window(std::ostream& out, const std::filesystem::path& output,
                   trace::TimeNs run_start) {
  try {
    const std::optional<trace::CaptureWindow> window =
        trace::capture_window(trace::load_trace(output).metadata());
    if (!window) return;
    if (window->end == window->begin) {
      out << "tscope record: warning: the capture window never opened (the program ran no step "
             "or range it names, or ended first); the trace holds no events\n";
      return;
    }
    out << fmt::format(
        "tscope record: captured the window {:.3f} s to {:.3f} s of the run ({:.3f} s)\n",
        static_cast<double>(window->begin - run_start) * 1e-9,
        static_cast<double>(window->end - run_start) * 1e-9,
        static_cast<double>(window->end - window->begin) * 1e-9);
    // NOLINTNEXTLINE(bugprone-empty-catch): report() says that the trace cannot be read.
  } catch (const trace::TraceError&) {
  }
}

int record(const std::vector<std::string>& command, std::filesystem::path output,
           const SessionSettings& session, const RecordWindowSettings& window) {
  if (output.empty()) {
    output = std::filesystem::path(command.front()).filename().string() + ".tsc";
  }
  output = std::filesystem::absolute(expand_output(output));
  std::error_code ignored;
  std::filesystem::remove(output, ignored);
  const int toggle_descriptor = install_capture_toggle();
  const trace::TimeNs run_start = profiler::monotonic_ns();
  ChildEnvironment environment(find_inject_library(), output, session,
                               window_environment(window, run_start, toggle_descriptor));
  const int status = run_child(command, environment);
  close(toggle_descriptor);
  if (!std::filesystem::exists(output)) write_empty_trace(output, command.front());
  report_window(std::cerr, output, run_start);
  report(std::cerr, output);
  if (WIFSIGNALED(status)) {
    std::cerr << fmt::format("tscope record: {} was killed by signal {} ({})\n", command.front(),
                             WTERMSIG(status), strsignal(WTERMSIG(status)));
    return kExitSignalBase + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

}  // namespace

void add_record_command(CLI::App& app, CommandContext& context) {
  struct Settings {
    std::string output;
    std::string gpu_trace{profiler::kDefaultGpuTrace};
    std::vector<std::string> command;
    SessionSettings session;
    std::string delay;
    std::string duration;
    std::string steps;
    std::string capture_range;
    bool start_paused = false;
  };
  auto settings = std::make_shared<Settings>();
  CLI::App* command = app.add_subcommand(
      "record",
      "Run a program under capture and write its trace (.tsc); exits with the program's code");
  command->add_option("-o,--output", settings->output,
                      "Trace to write (default: <program>.tsc in the current folder); %r is the "
                      "rank from mpirun/srun/torchrun, %p the pid of tscope, %h the host");
  command
      ->add_option("-t,--trace", settings->gpu_trace,
                   "CUPTI records beyond kernels, copies, memsets and device memory: a list of "
                   "runtime, driver, sync, overhead, or none")
      ->default_str(std::string(profiler::kDefaultGpuTrace));
  command->add_option("--delay", settings->delay,
                      "Capture from SECONDS after the program's start (or with a unit: "
                      "500ms)");
  command->add_option("--duration", settings->duration,
                      "Capture SECONDS from the capture window's opening (or with a unit: 2500ms)");
  command->add_option("--steps", settings->steps,
                      "Capture training steps A to B (A:B): our engine's 'step N', PyTorch's "
                      "ProfilerStep#N through NVTX, or NVTX ranges named 'step N'");
  command->add_option("--capture-range", settings->capture_range,
                      "nvtx:NAME: capture from the first time an NVTX range NAME opens until it "
                      "closes, as Nsight Systems does");
  command->add_flag("--start-paused", settings->start_paused,
                    "Start with capture paused; SIGUSR1 to tscope record starts it, the next "
                    "stops it (and so on; the window runs from the first start to the last stop)");
  command
      ->add_option("--buffer-mb", settings->session.buffer_mb,
                   "Each recording thread's buffer in MiB (events beyond it before a flush are "
                   "dropped and counted; default 4)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  command
      ->add_option("--flush-ms", settings->session.flush_ms,
                   "How often the writer drains the buffers to the file, in ms (default 100)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{3'600'000}));
  command->add_option("command", settings->command, "The program and its arguments, after --")
      ->required()
      ->expected(-1);
  command->footer(
      "Example: tscope record -o run.tsc -- ./train_fashion_mnist --steps 50\n"
      "NVTX ranges, marks and thread names of any program are captured; programs that link "
      "tensorscope also record their engine ops, memory and steps.");
  command->callback([settings, &context] {
    try {
      profiler::parse_gpu_trace(settings->gpu_trace);
    } catch (const profiler::GpuCaptureError& error) {
      std::cerr << "tscope record: -t " << settings->gpu_trace << ": " << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    RecordWindowSettings window;
    try {
      if (!settings->delay.empty()) window.delay = parse_duration(settings->delay);
      if (!settings->duration.empty()) window.duration = parse_duration(settings->duration);
      if (!settings->steps.empty()) window.steps = parse_step_range(settings->steps);
      if (!settings->capture_range.empty())
        window.range_name = parse_capture_range(settings->capture_range);
      window.start_paused = settings->start_paused;
    } catch (const WindowSyntaxError& error) {
      std::cerr << "tscope record: " << error.what() << "\n";
      context.exit_code = kExitBadInput;
      return;
    }
    // The recorded program inherits it; its CUDA injection reads it (gpu_capture.h).
    setenv(std::string(profiler::kGpuTraceVariable).c_str(), settings->gpu_trace.c_str(), 1);
    try {
      context.exit_code = record(settings->command, settings->output, settings->session, window);
    } catch (const RecordError& error) {
      std::cerr << "tscope record: " << error.what() << "\n";
      context.exit_code = error.exit_code();
    } catch (const trace::IoError& error) {
      std::cerr << "tscope record: " << error.what() << "\n";
      context.exit_code = kExitBadInput;
    } catch (const std::system_error& error) {
      std::cerr << "tscope record: " << error.what() << "\n";
      context.exit_code = kExitFailure;
    }
  });
}

}  // namespace tscope::cli
