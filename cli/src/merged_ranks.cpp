#include "merged_ranks.h"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "progress_line.h"
#include "tscope/analyzer/rank_summary.h"
#include "tscope/trace/trace_builder.h"
#include "tscope/trace/trace_io.h"

namespace tscope::cli {
namespace {

using trace::StringId;

constexpr std::int64_t kPidsPerRank = 1000;
constexpr std::int64_t kGpuPidBase = 500;

// Copies one rank's trace into `builder`, re-interning its strings.
class RankCopier {
 public:
  RankCopier(const trace::Trace& source, int rank, trace::TraceBuilder& builder)
      : source_(source), rank_(rank), builder_(builder) {
    strings_.reserve(source.strings().size());
    for (std::size_t id = 0; id < source.strings().size(); ++id) {
      strings_.push_back(builder.intern(source.strings().view(static_cast<StringId>(id))));
    }
  }

  void copy() {
    const std::int64_t rank_pid = (rank_ + 1) * kPidsPerRank;
    std::vector<std::uint32_t> processes;
    for (std::size_t index = 0; index < source_.processes().size(); ++index) {
      trace::Process process = source_.processes()[index];
      const std::string name(source_.string(process.name));
      process.pid = rank_pid + static_cast<std::int64_t>(index);
      process.name =
          builder_.intern("rank " + std::to_string(rank_) + (name.empty() ? "" : " " + name));
      process.host = strings_[process.host];
      process.rank = rank_;
      process.sort_index = rank_ * 100 + static_cast<std::int32_t>(index);
      processes.push_back(builder_.add_process(process));
    }
    std::map<std::int32_t, std::uint32_t> gpu_processes;
    const auto first_track = static_cast<std::uint32_t>(builder_.track_count());
    for (const trace::Track& track : source_.tracks()) {
      trace::TrackInfo info = track.info();
      info.name = strings_[info.name];
      info.process = processes.at(info.process);
      if (info.kind == trace::TrackKind::kGpuStream) {
        // The Chrome writer puts a stream's rows under pid = device, named after the process
        // whose pid that is: give each rank's device a process of its own.
        const std::int64_t pid = rank_pid + kGpuPidBase + std::max(info.device, 0);
        auto [entry, added] = gpu_processes.try_emplace(info.device, 0);
        if (added) {
          trace::Process gpu;
          gpu.pid = pid;
          gpu.name = builder_.intern("rank " + std::to_string(rank_) + " GPU " +
                                     std::to_string(info.device));
          gpu.rank = rank_;
          gpu.sort_index = rank_ * 100 + 50 + std::max(info.device, 0);
          entry->second = builder_.add_process(gpu);
        }
        info.process = entry->second;
        info.device = static_cast<std::int32_t>(pid);
      }
      builder_.add_track(info);
    }
    for (std::uint32_t index = 0; index < source_.tracks().size(); ++index)
      copy_events(index, first_track + index);
    // Events went in sorted order, so the source's sorted indices are the builder's arrival
    // indices.
    for (trace::Flow flow : source_.flows()) {
      flow.from.track += first_track;
      flow.to.track += first_track;
      builder_.add_flow(flow);
    }
    builder_.add_dropped_events(source_.metadata().dropped_events);
  }

 private:
  void remap(std::vector<trace::Arg>& args) const {
    for (trace::Arg& arg : args) {
      arg.key = strings_[arg.key];
      if (auto* text = std::get_if<trace::StringArg>(&arg.value)) text->id = strings_[text->id];
    }
  }

  void copy_events(std::uint32_t from, std::uint32_t to) {
    const trace::Track& track = source_.track(from);
    for (std::uint32_t span = 0; span < track.spans().size(); ++span) {
      trace::SpanRecord record = source_.span_record(from, span);
      record.name = strings_[record.name];
      remap(record.args);
      builder_.add_span(to, record);
    }
    for (std::uint32_t instant = 0; instant < track.instants().size(); ++instant) {
      trace::InstantRecord record = source_.instant_record(from, instant);
      record.name = strings_[record.name];
      remap(record.args);
      builder_.add_instant(to, record);
    }
    const trace::CounterColumns& counters = track.counters();
    for (std::size_t sample = 0; sample < counters.size(); ++sample) {
      builder_.add_counter_sample(to, counters.time[sample], counters.value[sample]);
    }
    for (std::size_t event = 0; event < track.memory().size(); ++event) {
      trace::MemoryRecord record = track.memory().record(event);
      record.owner_op = strings_[record.owner_op];
      record.scope = strings_[record.scope];
      builder_.add_memory_event(to, record);
    }
  }

  const trace::Trace& source_;
  int rank_;
  trace::TraceBuilder& builder_;
  std::vector<StringId> strings_;
};

// A collective as the multi-rank analysis matches it across ranks: (group, sequence number), or
// (group, op, order among the group's collectives of that op) where the trace has no numbers.
using CollectiveKey = std::tuple<std::string, std::int64_t, int, std::uint32_t>;

// Each rank's collectives by key, as the host spans they start with in the merged trace.
std::map<CollectiveKey, trace::EventRef> collective_spans(const trace::Trace& source,
                                                          std::uint32_t first_track) {
  std::vector<std::string> groups;
  const std::vector<analyzer::CollectiveRecord> records =
      analyzer::find_collectives(source, groups);
  // Host collective spans by start: where a record's host_start points.
  std::map<trace::TimeNs, trace::EventRef> by_start;
  for (std::uint32_t track = 0; track < source.tracks().size(); ++track) {
    if (source.track(track).info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = source.track(track).spans();
    for (std::uint32_t span = 0; span < spans.size(); ++span) {
      // Ours are of category communication; Kineto's `nccl:all_reduce` ranges are annotations.
      if (spans.category.at(span) != trace::Category::kCommunication &&
          source.string(spans.name.at(span)).find(':') == std::string_view::npos)
        continue;
      by_start.try_emplace(spans.start.at(span),
                           trace::EventRef{trace::EventKind::kSpan, first_track + track, span});
    }
  }
  std::map<CollectiveKey, trace::EventRef> keyed;
  for (const analyzer::CollectiveRecord& record : records) {
    const auto span = by_start.find(record.host_start);
    if (span == by_start.end()) continue;
    const CollectiveKey key =
        record.seq >= 0
            ? CollectiveKey{groups.at(record.group), record.seq, -1, 0}
            : CollectiveKey{groups.at(record.group), -1, static_cast<int>(record.op), record.order};
    keyed.try_emplace(key, span->second);
  }
  return keyed;
}

// Joins each collective to the same collective on the next rank that has it, so that selecting
// one draws the line to its peers in the viewer (and an arrow in Perfetto).
void join_collectives(const std::vector<trace::Trace>& traces,
                      const std::vector<std::uint32_t>& first_tracks,
                      trace::TraceBuilder& builder) {
  std::map<CollectiveKey, std::vector<trace::EventRef>> matched;
  for (std::size_t index = 0; index < traces.size(); ++index) {
    for (const auto& [key, span] : collective_spans(traces[index], first_tracks[index]))
      matched[key].push_back(span);
  }
  for (const auto& [key, spans] : matched) {
    for (std::size_t index = 1; index < spans.size(); ++index)
      builder.add_flow({trace::FlowKind::kOther, 0, spans[index - 1], spans[index]});
  }
}

}  // namespace

int rank_of(const trace::Trace& trace, int fallback) {
  if (const auto found = trace.metadata().values.find("rank");
      found != trace.metadata().values.end()) {
    int rank = 0;
    const std::string& text = found->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rank);
    if (error == std::errc() && end == text.data() + text.size() && rank >= 0) return rank;
  }
  for (const trace::Process& process : trace.processes()) {
    if (process.rank >= 0) return process.rank;
  }
  return fallback;
}

std::optional<trace::EventRef> MergedRanks::to_merged(int rank, trace::EventRef event) const {
  const auto found = std::find(ranks.begin(), ranks.end(), rank);
  if (found == ranks.end()) return std::nullopt;
  const auto index = static_cast<std::size_t>(found - ranks.begin());
  const std::uint32_t end = index + 1 < first_tracks.size()
                                ? first_tracks[index + 1]
                                : static_cast<std::uint32_t>(trace.tracks().size());
  // The GPU processes a rank gets add no tracks: its tracks are contiguous.
  if (event.track >= end - first_tracks[index]) return std::nullopt;
  event.track += first_tracks[index];
  return event;
}

MergedRanks merge_ranks(const std::vector<trace::Trace>& traces, const std::vector<int>& ranks) {
  trace::TraceBuilder builder;
  MergedRanks merged;
  merged.ranks = ranks;
  for (std::size_t index = 0; index < traces.size(); ++index) {
    merged.first_tracks.push_back(static_cast<std::uint32_t>(builder.track_count()));
    RankCopier(traces[index], ranks.at(index), builder).copy();
  }
  join_collectives(traces, merged.first_tracks, builder);
  builder.metadata().source_format = "tscope-ranks";
  // The flows are copied as they were; finalize must not add correlation links across ranks.
  merged.trace = builder.finalize({.link_correlated_events = false});
  return merged;
}

void warn_if_cut_off(const trace::Trace& loaded, const std::string& path) {
  if (loaded.metadata().lost_bytes != 0) {
    std::cerr << "tscope: warning: " << path << " was cut off; " << loaded.metadata().lost_bytes
              << " bytes after its last whole record were lost\n";
  }
}

LoadedRanks load_ranks(const std::vector<std::filesystem::path>& files, bool quiet) {
  LoadedRanks loaded;
  std::map<int, std::string> seen;
  for (const std::filesystem::path& file : files) {
    loaded.traces.push_back(load_trace_with_progress(file, quiet));
    warn_if_cut_off(loaded.traces.back(), file.string());
    loaded.ranks.push_back(rank_of(loaded.traces.back(), static_cast<int>(loaded.ranks.size())));
    if (const auto [entry, added] = seen.emplace(loaded.ranks.back(), file.string()); !added) {
      throw DuplicateRankError("duplicate rank " + std::to_string(loaded.ranks.back()) + ": " +
                               entry->second + " and " + file.string());
    }
  }
  return loaded;
}

trace::Trace load_merged_ranks(const std::vector<std::filesystem::path>& files, bool quiet) {
  const LoadedRanks loaded = load_ranks(files, quiet);
  return merge_ranks(loaded.traces, loaded.ranks).trace;
}

}  // namespace tscope::cli
