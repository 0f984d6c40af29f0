#pragma once
// Imports Chrome Trace Event JSON (PyTorch profiler / Kineto traces of any schema since 2021,
// chrome://tracing recordings, our own export) into a Trace, giving Kineto's categories, flows
// and memory events their meaning in the model.

#include <cstdint>
#include <filesystem>
#include <span>

#include "tscope/trace/chrome_json_input.h"
#include "tscope/trace/trace.h"

namespace tscope::trace {

struct ChromeJsonReadOptions {
  std::uint64_t max_bytes = kMaxChromeJsonBytes;
};

// Array form or object form ("traceEvents"), plain or gzip. A file cut off inside the event array
// loads the events before the cut and records the bytes it dropped in metadata().lost_bytes.
// Throws IoError when the file cannot be read and FormatError (file, byte offset) when it is not
// a Chrome trace.
Trace read_chrome_json(const std::filesystem::path& path,
                       const ChromeJsonReadOptions& options = {});
Trace read_chrome_json(const ChromeJsonInput& input);

// True when the first bytes of a file, plain or gzip, look like Chrome JSON.
bool looks_like_chrome_json(std::span<const std::uint8_t> head);

}  // namespace tscope::trace
