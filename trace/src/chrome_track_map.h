#pragma once
// Chrome's (pid, tid) rows as the model's processes and tracks: ids that are numbers, numeric
// strings or names, the names and sort orders that M events give them, Kineto's GPU rows
// (pid = device, tid = stream), and the tracks named after what they hold (memory pools,
// counters, async spans) in a process.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chrome_raw_event.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace::chrome_json {

// A Chrome row (pid, tid), numeric or named; numeric strings count as numbers so that "25738"
// and 25738 are one thread, as in the 2021 Kineto schema.
struct RowId {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  auto operator<=>(const RowId&) const = default;
};

class ChromeTrackMap {
 public:
  explicit ChromeTrackMap(TraceBuilder& builder) : builder_(builder) {}

  // The distributed rank of the host processes.
  void set_rank(std::int32_t rank) { rank_ = rank; }
  // Takes the process and thread names and sort orders of an M event. An M event may come after
  // events of its row (Kineto writes them last); apply_names() then names what was created first.
  void read_metadata_event(const RawEvent& event);
  // Gives every process and track made so far the name, sort order and rank the M events and
  // top-level members say; call once, after the last event.
  void apply_names();

  RowId row_of(const RawEvent& event);
  std::uint32_t host_track(RowId row);
  std::uint32_t gpu_track(std::int64_t device, std::int64_t stream);
  std::uint32_t named_track(std::int64_t pid, TrackKind kind, std::string_view name,
                            std::int32_t device);

 private:
  std::int64_t row_number(JsonValue value);
  std::uint32_t process_for(std::int64_t pid, bool gpu);
  void name_process(std::uint32_t index, std::int64_t pid, bool gpu);
  void name_host_track(std::uint32_t track, RowId row);
  void name_gpu_track(std::uint32_t track, std::int64_t device, std::int64_t stream);
  // The row a writer's "<thread> (overlapping)" row belongs to, by name within its process.
  std::optional<RowId> overlapped_row(RowId row) const;

  TraceBuilder& builder_;
  std::int32_t rank_ = -1;

  // Names of non-numeric pids and tids, numbered from kNamedRowBase down.
  static constexpr std::int64_t kNamedRowBase = std::numeric_limits<std::int64_t>::min() / 2;
  // Names are copied: the document they were read from is gone after its window.
  std::unordered_map<std::string, std::int64_t> named_rows_;
  // The last name looked up, a view of its key in named_rows_ (whose nodes stay in place).
  std::optional<std::pair<std::string_view, std::int64_t>> last_named_row_;
  std::unordered_map<std::int64_t, std::string> row_names_;
  static bool is_named_row(std::int64_t id) { return id <= kNamedRowBase; }

  std::map<std::int64_t, std::string> process_names_;
  std::map<std::int64_t, std::string> process_labels_;
  std::map<std::int64_t, std::int32_t> process_sort_;
  std::map<RowId, std::string> thread_names_;
  std::map<RowId, std::int32_t> thread_sort_;

  std::map<std::pair<std::int64_t, bool>, std::uint32_t> processes_;
  std::map<RowId, std::uint32_t> host_tracks_;
  // The row each host track was made for (a writer's "(overlapping)" row shares its base's).
  std::vector<std::pair<RowId, std::uint32_t>> created_host_tracks_;
  std::optional<std::pair<RowId, std::uint32_t>> last_host_row_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> gpu_tracks_;
  std::map<std::tuple<std::int64_t, TrackKind, std::string, std::int32_t>, std::uint32_t>
      named_tracks_;
};

}  // namespace tscope::trace::chrome_json
