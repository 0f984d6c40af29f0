#include "progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

// A quick load shows nothing; a redraw a few times a second is enough to see it move.
constexpr auto kFirstDraw = std::chrono::milliseconds(500);
constexpr auto kRedraw = std::chrono::milliseconds(200);

std::string megabytes(std::uint64_t bytes) {
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

}  // namespace

ProgressLine::ProgressLine(std::string label, bool quiet)
    : label_(std::move(label)),
      enabled_(!quiet && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void ProgressLine::update(const trace::LoadProgress& progress) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kFirstDraw || (drawn_ && now - last_draw_ < kRedraw)) return;
  last_draw_ = now;
  drawn_ = true;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const std::string read = progress.bytes_total > 0
                               ? fmt::format("{} of {} ({:.0f}%)", megabytes(progress.bytes_read),
                                             megabytes(progress.bytes_total),
                                             100.0 * static_cast<double>(progress.bytes_read) /
                                                 static_cast<double>(progress.bytes_total))
                               : megabytes(progress.bytes_read);
  std::fputs(fmt::format("\r\033[Kreading {}: {}, {:.2f} M events, {:.1f} MB/s", label_, read,
                         static_cast<double>(progress.events) / 1e6,
                         static_cast<double>(progress.bytes_read) / 1e6 / seconds)
                 .c_str(),
             stderr);
  std::fflush(stderr);
}

trace::LoadProgressCallback ProgressLine::callback() {
  return [this](const trace::LoadProgress& progress) { update(progress); };
}

void add_quiet_flag(CLI::App& command, bool& quiet) {
  command.add_flag("-q,--quiet", quiet, "Show no progress while loading large traces");
}

trace::Trace load_trace_with_progress(const std::filesystem::path& path, bool quiet) {
  ProgressLine line(path.filename().string(), quiet);
  return trace::load_trace(path, line.callback());
}

}  // namespace tscope::cli
