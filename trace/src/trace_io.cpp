#include "tscope/trace/trace_io.h"

#include <fstream>
#include <string>

#include "free_heap.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/chrome_json_writer.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/nsys_sqlite_reader.h"
#include "tscope/trace/perfetto_writer.h"
#include "tscope/trace/tsc_reader.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::trace {
namespace {

Trace load_tsc(const std::filesystem::path& path, const LoadProgressCallback& /*progress*/) {
  return read_tsc(path).trace;
}

Trace load_chrome_json(const std::filesystem::path& path, const LoadProgressCallback& progress) {
  ChromeJsonReadOptions options;
  options.progress = progress;
  return read_chrome_json(path, options);
}

Trace load_nsys_sqlite(const std::filesystem::path& path,
                       const LoadProgressCallback& /*progress*/) {
  return read_nsys_sqlite(path);
}

void save_tsc(const Trace& trace, const std::filesystem::path& path) {
  write_tsc(trace, path);
}

std::string supported_extensions() {
  std::string list;
  for (const TraceFormatInfo& info : trace_formats()) {
    if (info.save == nullptr) continue;
    for (const std::string_view extension : info.extensions) {
      if (!list.empty()) list += ", ";
      list += extension;
    }
  }
  return list;
}

std::string supported_names() {
  std::string list;
  for (const TraceFormatInfo& info : trace_formats()) {
    if (info.sniff == nullptr) continue;
    if (!list.empty()) list += ", ";
    list += info.name;
  }
  return list;
}

}  // namespace

const std::vector<TraceFormatInfo>& trace_formats() {
  static const std::vector<TraceFormatInfo> kFormats = {
      {TraceFormat::kTsc, "tsc", {".tsc"}, looks_like_tsc, load_tsc, save_tsc},
      {TraceFormat::kChromeJson,
       "chrome-json",
       {".json", ".json.gz"},
       looks_like_chrome_json,
       load_chrome_json,
       write_chrome_json},
      {TraceFormat::kNsysSqlite,
       "nsys-sqlite",
       {".sqlite"},
       looks_like_sqlite,
       load_nsys_sqlite,
       nullptr},
      {TraceFormat::kPerfetto,
       "perfetto",
       {".pftrace", ".pftrace.gz", ".perfetto-trace"},
       nullptr,
       nullptr,
       write_perfetto},
  };
  return kFormats;
}

const TraceFormatInfo& detect_input_format(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw IoError(path, "cannot open for reading");
  std::vector<std::uint8_t> head(kSniffBytes);
  file.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  if (file.bad()) throw IoError(path, "read failed");
  head.resize(static_cast<std::size_t>(file.gcount()));
  for (const TraceFormatInfo& info : trace_formats()) {
    if (info.sniff != nullptr && info.sniff(head)) return info;
  }
  throw FormatError(path, 0,
                    head.empty()
                        ? std::string("empty file, not a trace")
                        : "not a trace in any supported format (" + supported_names() + ")");
}

const TraceFormatInfo& format_for_output(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  for (const TraceFormatInfo& info : trace_formats()) {
    if (info.save == nullptr) continue;
    for (const std::string_view extension : info.extensions) {
      if (name.size() > extension.size() && name.ends_with(extension)) return info;
    }
  }
  throw TraceError(path.string() +
                   ": cannot tell the output format from the file name (supported: " +
                   supported_extensions() + ")");
}

Trace load_trace(const std::filesystem::path& path, const LoadProgressCallback& progress) {
  Trace trace = detect_input_format(path).load(path, progress);
  // The reader has dropped its scratch (windows, caches, the builder's buffers) only now, after
  // TraceBuilder::finalize, and a whole-file load is done once per file: what it freed goes
  // back, at any size (a 57,506-event Kineto trace held 249 bytes per event of resident memory
  // without this, 112 with it).
  return_free_heap_to_system();
  return trace;
}

void save_trace(const Trace& trace, const std::filesystem::path& path) {
  format_for_output(path).save(trace, path);
}

}  // namespace tscope::trace
