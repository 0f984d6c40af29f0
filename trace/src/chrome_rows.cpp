#include "chrome_rows.h"

#include <algorithm>
#include <map>
#include <set>

#include "tscope/trace/chrome_kineto_names.h"

namespace tscope::trace {

ChromeRows::ChromeRows(const Trace& trace, std::int64_t pid_offset) {
  const auto& processes = trace.processes();
  const auto& tracks = trace.tracks();

  // Ids a row already owns; named rows are numbered after the largest, so they never collide.
  std::int64_t largest_pid = -1;
  for (const Process& process : processes)
    largest_pid = std::max(largest_pid, process.pid);
  std::map<std::uint32_t, std::int64_t> largest_tid;  // by process
  for (const Track& track : tracks) {
    const TrackInfo& info = track.info();
    if (info.kind == TrackKind::kGpuStream)
      largest_pid = std::max<std::int64_t>(largest_pid, info.device);
    if (info.kind == TrackKind::kHostThread) {
      auto [entry, inserted] = largest_tid.try_emplace(info.process, 0);
      entry->second = std::max(entry->second, info.thread_id);
    }
  }

  std::vector<std::int64_t> process_pids(processes.size());
  std::int64_t next_named_pid = largest_pid + 1;
  for (std::size_t index = 0; index < processes.size(); ++index) {
    process_pids[index] = (processes[index].pid >= 0 ? processes[index].pid : next_named_pid++);
  }

  std::set<std::int64_t> listed;
  const auto list_process = [&](std::int64_t pid, std::string name, std::int32_t sort_index,
                                bool gpu) {
    if (listed.insert(pid).second) {
      processes_.push_back({pid + pid_offset, std::move(name), sort_index, gpu});
    }
  };

  tracks_.reserve(tracks.size());
  for (const Track& track : tracks) {
    const TrackInfo& info = track.info();
    const Process& owner = processes[info.process];
    ChromeRow row;
    if (info.kind == TrackKind::kGpuStream && info.device >= 0) {
      // Kineto gives each device its own pid; a device without a process of its own is named
      // after the device.
      const bool own = owner.pid == info.device;
      row = {info.device, std::max<std::int64_t>(info.stream, 0)};
      list_process(
          row.pid,
          own ? std::string(trace.string(owner.name)) : "GPU " + std::to_string(info.device),
          own ? owner.sort_index : 0, true);
    } else {
      row.pid = process_pids[info.process];
      list_process(row.pid, std::string(trace.string(owner.name)), owner.sort_index, false);
      if (info.kind == TrackKind::kHostThread) {
        row.tid = info.thread_id >= 0 ? info.thread_id : ++largest_tid[info.process];
      }
    }
    row.pid += pid_offset;
    TrackRows& track_rows = tracks_.emplace_back();
    track_rows.rows.push_back(row);
    std::uint32_t lanes = 1;
    track_rows.span_lane = nesting_lanes(track, lanes);
    const bool thread_row =
        info.kind == TrackKind::kHostThread || info.kind == TrackKind::kGpuStream;
    const std::string name(trace.string(info.name));
    if (thread_row) threads_.push_back({row, name, info.sort_index});
    for (std::uint32_t lane = 1; lane < lanes; ++lane) {
      const ChromeRow overlap{row.pid, ++largest_tid[info.process]};
      track_rows.rows.push_back(overlap);
      threads_.push_back({overlap, name + std::string(kChromeOverlapRowSuffix), info.sort_index});
    }
  }
}

std::vector<std::uint32_t> ChromeRows::nesting_lanes(const Track& track, std::uint32_t& lanes) {
  const SpanColumns& spans = track.spans();
  std::vector<std::uint32_t> order(spans.size());
  for (std::uint32_t span = 0; span < order.size(); ++span)
    order[span] = span;
  // Parents before their children: by start, the longer first.
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return spans.start[a] != spans.start[b] ? spans.start[a] < spans.start[b]
                                            : spans.end(a) > spans.end(b);
  });
  std::vector<std::vector<TimeNs>> open_ends(1);  // per lane, the ends of its open spans
  std::vector<std::uint32_t> lane_of(spans.size(), 0);
  bool overlapping = false;
  for (const std::uint32_t span : order) {
    std::uint32_t lane = 0;
    for (;; ++lane) {
      if (lane == open_ends.size()) open_ends.emplace_back();
      std::vector<TimeNs>& ends = open_ends[lane];
      while (!ends.empty() && ends.back() <= spans.start[span])
        ends.pop_back();
      if (ends.empty() || spans.end(span) <= ends.back()) break;
    }
    open_ends[lane].push_back(spans.end(span));
    lane_of[span] = lane;
    overlapping = overlapping || lane != 0;
  }
  lanes = static_cast<std::uint32_t>(open_ends.size());
  if (!overlapping) {
    lanes = 1;
    return {};
  }
  return lane_of;
}

}  // namespace tscope::trace
