#pragma once
// Imports Chrome Trace Event JSON (PyTorch profiler / Kineto traces of any schema since 2021,
// chrome://tracing recordings, our own export) into a Trace, giving Kineto's categories, flows
// and memory events their meaning in the model.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>

#include "tscope/trace/chrome_json_input.h"
#include "tscope/trace/load_progress.h"
#include "tscope/trace/trace.h"

namespace tscope::trace {

struct ChromeJsonReadOptions {
  // A bound on the (decompressed) text. The reader streams the text, so its memory grows with the
  // events, not with this; the bound is for callers that want to refuse huge inputs early.
  std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max();
  // Events are parsed this much text at a time: large enough that a parse costs little per byte,
  // small enough that the window and its parsed document stay in the caches.
  std::size_t window_bytes = std::size_t{1} << 20;
  // The most text of one event, or of the members before or after the object form's event array,
  // that the reader holds while it looks for the end: one that runs longer is refused with a
  // FormatError naming where it starts. Far above any event a profiler writes. Besides the model,
  // the reader then holds a few times this and a few windows whatever the input (runs of
  // whitespace it skips).
  std::size_t max_event_bytes = std::size_t{16} << 20;
  // Told after each window.
  LoadProgressCallback progress;
};

// Array form or object form ("traceEvents"), plain or gzip, read as a stream: a window of events
// at a time, so memory holds the model and not the text. A file cut off inside the event array
// loads the events before the cut and records the bytes it dropped in metadata().lost_bytes.
// Throws IoError when the file cannot be read and FormatError (file, byte offset) when it is not
// a Chrome trace, or when the memory the process may use runs out while reading it.
Trace read_chrome_json(const std::filesystem::path& path,
                       const ChromeJsonReadOptions& options = {});
Trace read_chrome_json(const ChromeJsonInput& input, const ChromeJsonReadOptions& options = {});

// True when the first bytes of a file, plain or gzip, look like Chrome JSON.
bool looks_like_chrome_json(std::span<const std::uint8_t> head);

}  // namespace tscope::trace
