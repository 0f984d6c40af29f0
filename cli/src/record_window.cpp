#include "record_window.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <ctime>

#include "tscope/trace/trace_cut.h"
#include "tscope/trace/trace_io.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::cli {
namespace {

constexpr std::string_view kNvtxPrefix = "nvtx:";

// Filled by the signal handler, so fixed-size and lock-free; toggles past the last slot are
// ignored (the window is from the first start to the last stop noted).
std::array<std::atomic<trace::TimeNs>, 256> toggle_times;
std::atomic<std::size_t> toggle_count{0};

void note_toggle(int) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const std::size_t slot = toggle_count.load(std::memory_order_relaxed);
  if (slot >= toggle_times.size()) return;
  toggle_times[slot].store(static_cast<trace::TimeNs>(now.tv_sec) * 1'000'000'000 + now.tv_nsec,
                           std::memory_order_relaxed);
  toggle_count.store(slot + 1, std::memory_order_release);
}

}  // namespace

std::string parse_capture_range(const std::string& text) {
  if (!text.starts_with(kNvtxPrefix) || text.size() == kNvtxPrefix.size()) {
    throw WindowSyntaxError(fmt::format(
        "'{}' is not a capture range of the form nvtx:NAME (an NVTX range's name)", text));
  }
  return text.substr(kNvtxPrefix.size());
}

void install_capture_toggle() {
  struct sigaction toggle {};
  toggle.sa_handler = note_toggle;
  sigemptyset(&toggle.sa_mask);
  toggle.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &toggle, nullptr);
}

std::vector<trace::TimeNs> capture_toggles() {
  std::vector<trace::TimeNs> times;
  const std::size_t count = toggle_count.load(std::memory_order_acquire);
  for (std::size_t slot = 0; slot < count; ++slot)
    times.push_back(toggle_times[slot].load(std::memory_order_relaxed));
  return times;
}

trace::CaptureWindow record_window(const trace::Trace& recorded,
                                   const RecordWindowSettings& settings, trace::TimeNs run_start,
                                   trace::TimeNs run_end,
                                   const std::vector<trace::TimeNs>& toggles) {
  bool capturing = !settings.start_paused;
  std::optional<trace::TimeNs> first_start;
  if (capturing) first_start = run_start;
  trace::TimeNs last_stop = run_start;
  for (const trace::TimeNs time : toggles) {
    capturing = !capturing;
    if (capturing && !first_start) first_start = time;
    if (!capturing) last_stop = time;
  }
  if (capturing) last_stop = run_end;
  // Never started: an empty window at the end of the run.
  trace::CaptureWindow window{first_start.value_or(run_end), first_start ? last_stop : run_end};
  const auto narrow = [&window](const trace::CaptureWindow& other) {
    window.begin = std::max(window.begin, other.begin);
    window.end = std::min(window.end, other.end);
  };
  if (settings.delay) window.begin = std::max(window.begin, run_start + *settings.delay);
  if (settings.steps) narrow(window_of_steps(recorded, *settings.steps));
  if (settings.range_name) narrow(window_of_range(recorded, *settings.range_name));
  if (settings.duration) window.end = std::min(window.end, window.begin + *settings.duration);
  window.end = std::max(window.end, window.begin);
  return window;
}

trace::CaptureWindow cut_recording(const std::filesystem::path& path,
                                   const RecordWindowSettings& settings, trace::TimeNs run_start,
                                   trace::TimeNs run_end) {
  const trace::Trace recorded = trace::load_trace(path);
  const trace::CaptureWindow window =
      record_window(recorded, settings, run_start, run_end, capture_toggles());
  // Written beside and renamed over, so an interrupted cut leaves the whole recording.
  std::filesystem::path cut_path = path;
  cut_path += ".cut";
  trace::write_tsc(trace::cut_trace(recorded, window), cut_path);
  std::filesystem::rename(cut_path, path);
  return window;
}

}  // namespace tscope::cli
