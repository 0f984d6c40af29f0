#pragma once
// Where each track of a Trace goes in Chrome's (pid, tid) grid, as numbers always: Kineto's
// conventions (pid = device and tid = stream for GPU rows, the OS ids for host threads), and a
// stable number for a process or thread the trace knows only by name (Kineto's "Spans", an
// imported "thread -1"), since viewers such as speedscope reject textual or missing ids. The
// names stay in the process_name and thread_name metadata the writer emits for every row.
// Slices of one Chrome thread must nest (Perfetto drops one that crosses its parent's end), so
// spans of a track that overlap without nesting (Kineto's "Stream Sync" over a memcpy on the
// same stream) go to extra rows named "<track> (overlapping)".

#include <cstdint>
#include <string>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::trace {

struct ChromeRow {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
};

class ChromeRows {
 public:
  // `pid_offset` is added to every pid, so several traces (one per rank) can share one file.
  explicit ChromeRows(const Trace& trace, std::int64_t pid_offset = 0);

  // The row of a track's instants, counters and memory events, and of its spans by default.
  const ChromeRow& of_track(std::uint32_t track) const { return tracks_[track].rows.front(); }
  const ChromeRow& of_span(std::uint32_t track, std::uint32_t span) const {
    const TrackRows& rows = tracks_[track];
    return rows.span_lane.empty() ? rows.rows.front() : rows.rows[rows.span_lane[span]];
  }

  // One entry per distinct pid, in the order of the trace's processes and devices.
  struct ChromeProcess {
    std::int64_t pid = 0;
    std::string name;
    std::int32_t sort_index = 0;
    bool gpu = false;
  };
  const std::vector<ChromeProcess>& processes() const { return processes_; }

  // Every thread row (host threads, GPU streams and their overlap rows), for thread_name.
  struct ChromeThread {
    ChromeRow row;
    std::string name;
    std::int32_t sort_index = 0;
  };
  const std::vector<ChromeThread>& threads() const { return threads_; }

 private:
  struct TrackRows {
    std::vector<ChromeRow> rows;           // lane 0 first
    std::vector<std::uint32_t> span_lane;  // empty when every span nests in lane 0
  };
  // Lanes in which the track's spans nest; empty when one lane holds them all.
  static std::vector<std::uint32_t> nesting_lanes(const Track& track, std::uint32_t& lanes);

  std::vector<TrackRows> tracks_;
  std::vector<ChromeProcess> processes_;
  std::vector<ChromeThread> threads_;
};

}  // namespace tscope::trace
