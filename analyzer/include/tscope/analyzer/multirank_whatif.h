#pragma once
// What-if replay of a distributed run from one trace per rank: every rank's steps replayed
// together, coupled at their collectives. A collective (a host span for MPI and Gloo, its kernel
// for NCCL) ends on a rank when the last rank has arrived at it plus that rank's share of the
// transfer (its measured end less the last arrival), so an edit that moves one rank's arrival
// moves every rank's step:
// removing a straggler's extra work shortens the others' waits. Without edits the coupled replay
// reproduces each rank's measured steps. Unlike `tscope analyze` of several ranks, which holds one
// trace at a time, the coupled replay holds every rank's trace in memory.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/whatif.h"

namespace tscope::analyzer {

struct RankInput {
  const AnalysisContext* context = nullptr;
  std::string source;  // the trace's path, for people
};

struct RankWhatIf {
  std::string source;
  std::optional<int> rank;     // from the trace's metadata
  double clock_offset_ns = 0;  // subtracted from its times to align it with the first rank
  WhatIfResult result;         // its steps; matches count this rank's events only
};

struct MultiRankWhatIfResult {
  std::vector<RankWhatIf> ranks;     // in the order given
  std::vector<std::size_t> matches;  // per edit: the events it changed, over every rank
  // Collectives within the steps that every rank ran: the replay couples the ranks at these.
  std::size_t coupled_collectives = 0;
  // Collectives within the steps replayed as measured on each rank: GPU collectives of several
  // kernels and those not found on every rank within the step.
  std::size_t uncoupled_collectives = 0;
};

// Replays the steps the ranks have in common (by index) with `edits` applied on every rank.
// Throws AnalyzerError when fewer than two ranks are given, when a rank has no step ranges, or when
// an edit matches no event of any rank.
MultiRankWhatIfResult predict_rank_steps(std::span<const RankInput> inputs,
                                         std::span<const WhatIfEdit> edits);

// Each rank's prediction as render_whatif_text shows one trace's, after a line on the coupling.
std::string render_rank_whatif_text(const MultiRankWhatIfResult& result,
                                    std::span<const WhatIfEdit> edits);
// The same as JSON (schema "tscope.whatif-ranks/1"): per rank, the fields of "tscope.whatif/1".
std::string render_rank_whatif_json(const MultiRankWhatIfResult& result,
                                    std::span<const WhatIfEdit> edits);

}  // namespace tscope::analyzer
