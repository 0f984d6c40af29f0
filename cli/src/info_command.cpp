// `tscope info FILE...`: what a trace holds (time span, processes and tracks, event counts by kind
// and category, what the recorder dropped and what could not be read back) without opening a
// viewer. Several traces, or a folder of a run's ranks, are summarised one after another.

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "progress_line.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

using trace::Trace;

std::string track_summary(const Trace& loaded, const trace::Track& track) {
  const trace::TrackInfo& info = track.info();
  const trace::Process& process = loaded.processes().at(info.process);
  std::string where = fmt::format("pid {}", process.pid);
  if (info.kind == trace::TrackKind::kHostThread) where += fmt::format(", tid {}", info.thread_id);
  if (info.kind == trace::TrackKind::kGpuStream) {
    where += fmt::format(", device {}, stream {}", info.device, info.stream);
  }
  if (info.kind == trace::TrackKind::kMemoryPool) where += fmt::format(", device {}", info.device);
  std::string counts;
  const auto add = [&](std::size_t count, const char* noun) {
    if (count == 0) return;
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, noun);
  };
  add(track.spans().size(), "spans");
  add(track.instants().size(), "instants");
  add(track.counters().size(), "counter samples");
  add(track.memory().size(), "memory events");
  if (track.depth_count() > 0) counts += fmt::format(", depth {}", track.depth_count());
  return fmt::format("{} \"{}\" ({}): {}", trace::to_string(info.kind), loaded.string(info.name),
                     where, counts.empty() ? "empty" : counts);
}

void print_info(std::ostream& out, const std::string& path, const std::string_view format,
                const Trace& loaded) {
  const trace::TraceMetadata& metadata = loaded.metadata();
  const trace::TraceCounts counts = loaded.counts();
  const trace::TimeNs begin = loaded.begin_time();
  const trace::TimeNs end = loaded.end_time();
  out << fmt::format("file:        {}\n", path);
  out << fmt::format("format:      {}{}\n", format,
                     metadata.source_format.empty() || metadata.source_format == format
                         ? std::string()
                         : fmt::format(" (recorded as {})", metadata.source_format));
  out << fmt::format("time span:   {:.6f} s ({} ns .. {} ns)\n",
                     static_cast<double>(end - begin) * 1e-9, begin, end);
  out << fmt::format(
      "events:      {} spans, {} instants, {} counter samples, {} memory events, "
      "{} flows\n",
      counts.spans, counts.instants, counts.counter_samples, counts.memory_events, counts.flows);
  out << fmt::format("dropped:     {} events (recorder fell behind)\n", metadata.dropped_events);
  out << fmt::format("lost:        {} bytes, {} records (damaged or cut-off input)\n",
                     metadata.lost_bytes, metadata.lost_records);

  out << fmt::format("processes:   {}\n", loaded.processes().size());
  for (const trace::Process& process : loaded.processes()) {
    out << fmt::format("  pid {} \"{}\"", process.pid, loaded.string(process.name));
    if (process.host != trace::kEmptyString)
      out << fmt::format(" on {}", loaded.string(process.host));
    if (process.rank >= 0) out << fmt::format(", rank {}", process.rank);
    out << "\n";
  }
  out << fmt::format("tracks:      {}\n", loaded.tracks().size());
  for (std::size_t index = 0; index < loaded.tracks().size(); ++index) {
    out << fmt::format("  [{}] {}\n", index, track_summary(loaded, loaded.tracks()[index]));
  }
  if (counts.spans > 0) {
    out << "spans by category:\n";
    for (int category = 0; category < trace::kCategoryCount; ++category) {
      if (counts.spans_by_category[category] == 0) continue;
      out << fmt::format("  {:<20} {}\n", trace::to_string(static_cast<trace::Category>(category)),
                         counts.spans_by_category[category]);
    }
  }
  if (!metadata.values.empty()) {
    out << "metadata:\n";
    for (const auto& [key, value] : metadata.values)
      out << fmt::format("  {}: {}\n", key, value);
  }
}

}  // namespace

void add_info_command(CLI::App& app, CommandContext& context) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "info",
      "Summarise a trace: time span, processes and tracks, counts by kind and category, "
      "dropped and lost events");
  add_trace_paths(*command, "FILE", *paths,
                  "Trace file (.tsc or any format tscope reads); several, or a folder");
  add_quiet_flag(*command, *quiet);
  command->callback([paths, quiet, &context] {
    const std::vector<std::filesystem::path> files =
        analyzer::list_trace_files({paths->begin(), paths->end()});
    for (std::size_t index = 0; index < files.size(); ++index) {
      // One trace in memory at a time, however many ranks.
      const trace::TraceFormatInfo& format = trace::detect_input_format(files[index]);
      ProgressLine line(files[index].filename().string(), *quiet);
      const Trace loaded = format.load(files[index], line.callback());
      if (index > 0) std::cout << "\n";
      print_info(std::cout, files[index].string(), format.name, loaded);
    }
    context.exit_code = kExitOk;
  });
}

}  // namespace tscope::cli
