#pragma once
// A progress line on stderr while a command loads a large trace: how much of the file is read,
// how many events, at what rate. It appears only on a terminal, only once a load has taken half a
// second, and never with --quiet; it is erased when the load ends.

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <string>

#include "tscope/trace/load_progress.h"
#include "tscope/trace/trace.h"

namespace tscope::cli {

class ProgressLine {
 public:
  ProgressLine(std::string label, bool quiet);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const trace::LoadProgress& progress);
  // A callback for the readers; valid while this line lives.
  trace::LoadProgressCallback callback();

 private:
  std::string label_;
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// Adds the -q/--quiet flag that silences the progress line.
void add_quiet_flag(CLI::App& command, bool& quiet);

// load_trace with a progress line for `path`.
trace::Trace load_trace_with_progress(const std::filesystem::path& path, bool quiet);

}  // namespace tscope::cli
