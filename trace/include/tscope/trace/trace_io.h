#pragma once
// One entry point to load and save traces in any supported format: the input format is sniffed
// from the file's content, the output format chosen from the path's extension.

#include <filesystem>
#include <string>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::trace {

enum class TraceFormat { kTsc };

// Sniffs the format from the first bytes of `path`. Throws IoError, FormatError when unknown.
TraceFormat detect_input_format(const std::filesystem::path& path);
// Chooses the format from the extension. Throws TraceError naming the supported extensions.
TraceFormat format_for_output(const std::filesystem::path& path);

// Load a trace of any supported format; a truncated input loads what it can and says so in
// metadata().lost_bytes / lost_records. Throws IoError or FormatError.
Trace load_trace(const std::filesystem::path& path);
void save_trace(const Trace& trace, const std::filesystem::path& path);

}  // namespace tscope::trace
