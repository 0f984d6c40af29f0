#pragma once
// One entry point to load and save traces in any supported format: the input format is sniffed
// from the file's content, the output format chosen from the path's extension. A new format
// plugs in as one entry of the format table in trace_io.cpp.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/trace/load_progress.h"
#include "tscope/trace/trace.h"

namespace tscope::trace {

enum class TraceFormat { kTsc, kChromeJson, kNsysSqlite, kPerfetto };

struct TraceFormatInfo {
  TraceFormat format;
  std::string_view name;
  // File name endings that select this format for output, e.g. ".tsc" or ".json.gz".
  std::vector<std::string_view> extensions;
  // True when the first bytes of a file (up to kSniffBytes) are in this format; nullptr for
  // formats tensorscope only writes.
  bool (*sniff)(std::span<const std::uint8_t> head);
  // `progress` is told how far the load has got, where the format's reader can say (Chrome JSON).
  Trace (*load)(const std::filesystem::path& path, const LoadProgressCallback& progress);
  // nullptr for formats tensorscope only reads.
  void (*save)(const Trace& trace, const std::filesystem::path& path);
};

inline constexpr std::size_t kSniffBytes = 4096;

const std::vector<TraceFormatInfo>& trace_formats();

// Sniffs the format from the first bytes of `path`. Throws IoError, or FormatError when no
// supported format matches.
const TraceFormatInfo& detect_input_format(const std::filesystem::path& path);
// Chooses a writable format from the extension. Throws TraceError naming the supported endings.
const TraceFormatInfo& format_for_output(const std::filesystem::path& path);

// Loads a trace of any supported format; a truncated input loads what it can and says so in
// metadata().lost_bytes / lost_records. Throws IoError or FormatError.
Trace load_trace(const std::filesystem::path& path, const LoadProgressCallback& progress = {});
// Saves in the format the extension selects. Throws TraceError or IoError.
void save_trace(const Trace& trace, const std::filesystem::path& path);

}  // namespace tscope::trace
