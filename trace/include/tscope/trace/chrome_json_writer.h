#pragma once
// Exports a Trace as Chrome Trace Event JSON in Kineto's conventions, so Perfetto UI,
// chrome://tracing, speedscope, DevTools' trace engine, HTA and our own reader open it: numeric
// pids and tids (names in process_name/thread_name metadata), timestamps as exact decimals of
// microseconds relative to "baseTimeNanoseconds", pid = device and tid = stream for GPU rows,
// launch flows as "ac2g" s/f pairs with one id per arrow, memory events as Kineto's "[memory]"
// instants plus counters.

#include <cstdint>
#include <filesystem>
#include <span>

#include "tscope/trace/trace.h"

namespace tscope::trace {

// Where the writer puts what an event carries beyond its name and times (op shapes, tensor ids,
// correlation ids, kernel launch figures).
enum class ChromeDetailPlacement : std::uint8_t {
  // In the event's "args", which Perfetto UI and chrome://tracing show.
  kArgs,
  // In a "tscopeArgs" member that viewers ignore and tscope reads back: speedscope keys a frame
  // on name plus args, so per-call args split one op into thousands of frames.
  kSeparate,
};

struct ChromeJsonOptions {
  ChromeDetailPlacement detail = ChromeDetailPlacement::kArgs;
};

// One trace of a file that may hold several (one per rank): its pids are shifted by pid_offset.
struct ChromeJsonPart {
  const Trace& trace;
  std::int64_t pid_offset = 0;
};

// Streams as it goes (constant memory); gzip when `path` ends in ".gz". Throws IoError when the
// file cannot be written.
void write_chrome_json(const Trace& trace, const std::filesystem::path& path);
// Several traces in one file, timed from the earliest begin; the top-level metadata is the
// first part's. Flow ids are unique across parts.
void write_chrome_json(std::span<const ChromeJsonPart> parts, const std::filesystem::path& path,
                       const ChromeJsonOptions& options);

}  // namespace tscope::trace
