#pragma once
// The traces of several ranks as one Trace for presentation (the Chrome export): each rank's
// processes renamed "rank N ..." with pids of their own, and its GPU streams grouped under a
// "rank N GPU d" process, so that viewers show one group of rows per rank. Times stay as
// recorded; analysis never reads this merged trace.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::cli {

// The rank of a trace: its metadata's `rank`, else a process's rank, else `fallback`.
int rank_of(const trace::Trace& trace, int fallback);

// The merged trace and where each rank's tracks went in it: rank ranks[i]'s track t is track
// first_tracks[i] + t, and every event keeps its index within its track.
struct MergedRanks {
  trace::Trace trace;
  std::vector<int> ranks;
  std::vector<std::uint32_t> first_tracks;

  // `event` of rank `rank`'s own trace as the merged trace numbers it; absent for a rank that is
  // not in the merge or a track that rank's trace does not have.
  std::optional<trace::EventRef> to_merged(int rank, trace::EventRef event) const;
};

// Host process k of rank r gets pid (r + 1) * 1000 + k; GPU device d of rank r gets
// (r + 1) * 1000 + 500 + d. Each collective matched across ranks (by group and sequence number,
// or by order within group and op) gets a flow of kind other from its host range on one rank to
// its host range on the next.
MergedRanks merge_ranks(const std::vector<trace::Trace>& traces, const std::vector<int>& ranks);

// Says on stderr that `loaded` (read from `path`) was cut off, when it was.
void warn_if_cut_off(const trace::Trace& loaded, const std::string& path);

// Two traces of one rank in a set to merge.
class DuplicateRankError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The traces of one run, each with its rank (rank_of, falling back to the order given).
struct LoadedRanks {
  std::vector<trace::Trace> traces;
  std::vector<int> ranks;
};

// Loads every file, each with a progress line on a terminal unless `quiet`, warning on stderr
// about cut-off ones. Throws DuplicateRankError naming both files, or the trace layer's IoError
// and FormatError.
LoadedRanks load_ranks(const std::vector<std::filesystem::path>& files, bool quiet);

// load_ranks, merged.
trace::Trace load_merged_ranks(const std::vector<std::filesystem::path>& files, bool quiet);

}  // namespace tscope::cli
