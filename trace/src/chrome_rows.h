#pragma once
// Where each track of a Trace goes in Chrome's (pid, tid) grid, as numbers always: Kineto's
// conventions (pid = device and tid = stream for GPU rows, the OS ids for host threads), and a
// stable number for a process or thread the trace knows only by name (Kineto's "Spans", an
// imported "thread -1"), since viewers such as speedscope reject textual or missing ids. The
// names stay in the process_name and thread_name metadata the writer emits for every row.

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

  const ChromeRow& of_track(std::uint32_t track) const { return tracks_[track]; }

  // One entry per distinct pid, in the order of the trace's processes and devices.
  struct ChromeProcess {
    std::int64_t pid = 0;
    std::string name;
    std::int32_t sort_index = 0;
    bool gpu = false;
  };
  const std::vector<ChromeProcess>& processes() const { return processes_; }

 private:
  std::vector<ChromeRow> tracks_;
  std::vector<ChromeProcess> processes_;
};

}  // namespace tscope::trace
