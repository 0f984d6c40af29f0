#include "tscope/analyzer/multirank_whatif.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <tuple>

#include "order_statistics.h"
#include "step_replay.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/rank_summary.h"
#include "whatif_edits.h"
#include "whatif_result.h"

namespace tscope::analyzer {
namespace {

// A collective as every rank numbers it: its group's name, its op, and its sequence number in the
// group (or, where the trace has none, its place among the rank's collectives of that group and
// op).
using CollectiveKey = std::tuple<std::string, CollectiveOp, std::int64_t>;

// Where a rank runs a collective: its host span (MPI, Gloo) or the one NCCL kernel it launched.
struct RankCollective {
  trace::EventRef span;
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
};

// One rank's trace, edits, replay and host collectives by key.
struct Rank {
  const AnalysisContext* context = nullptr;
  std::unique_ptr<ResolvedEdits> edits;
  std::unique_ptr<StepReplay> replay;
  std::map<CollectiveKey, RankCollective> collectives;
  std::size_t unmodelled_collectives = 0;  // within steps: GPU collectives of several kernels
  double offset_ns = 0;
};

void find_rank_collectives(Rank& rank) {
  const trace::Trace& trace = rank.context->trace();
  std::vector<std::string> groups;
  for (const CollectiveRecord& record : find_collectives(trace, groups)) {
    if (!record.in_step) continue;
    // A collective of several kernels has no one node that ends when the last rank arrives.
    if (record.on_gpu && !record.single_kernel) {
      ++rank.unmodelled_collectives;
      continue;
    }
    const trace::EventRef where = record.on_gpu ? record.kernel : record.span;
    const trace::SpanColumns& spans = trace.track(where.track).spans();
    const std::int64_t number = record.seq >= 0 ? record.seq : record.order;
    rank.collectives[{groups[record.group], record.op, number}] = {where, spans.start[where.index],
                                                                   spans.end(where.index)};
  }
}

// The offset of each rank's clock from the first rank's: the median over the collectives they
// share of the difference in their ends, since a collective releases every rank at once when the
// last one arrives. Ranks on one host measure about 0.
void align_clocks(std::vector<Rank>& ranks) {
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    std::vector<double> differences;
    for (const auto& [key, collective] : ranks[r].collectives) {
      const auto first = ranks.front().collectives.find(key);
      if (first == ranks.front().collectives.end()) continue;
      differences.push_back(static_cast<double>(collective.end - first->second.end));
    }
    ranks[r].offset_ns = differences.empty() ? 0 : median(std::move(differences));
  }
}

// One collective of a step on every rank, as the replay couples it.
struct Coupled {
  std::vector<std::uint32_t> span;  // per rank: the collective's span in the rank's step graph
  std::vector<double> transfer_ns;  // per rank: its end less the last rank's arrival, measured
};

class CoupledStep {
 public:
  CoupledStep(std::vector<Rank>& ranks, std::vector<Coupled> collectives)
      : ranks_(ranks), collectives_(std::move(collectives)) {}

  // Each rank's step length, replayed with or without the edits until the collectives' ends
  // agree with the ranks' arrivals. Every pass can only move nodes later, and a pass moves the
  // next collective in program order, so a step settles within one pass per collective.
  std::vector<double> lengths(bool edited) {
    std::vector<double> lengths(ranks_.size());
    for (Rank& rank : ranks_)
      rank.replay->clear_floors();
    std::vector<double> floors(collectives_.size() * ranks_.size(), kUnset);
    for (std::size_t pass = 0; pass <= collectives_.size() + 1; ++pass) {
      for (std::size_t r = 0; r < ranks_.size(); ++r)
        lengths[r] = ranks_[r].replay->length(edited);
      if (!raise_floors(edited, floors)) break;
    }
    return lengths;
  }

  std::size_t collective_count() const { return collectives_.size(); }

  // Takes each collective's wait for later ranks out of its span's (or kernel's) own time.
  void scale_collectives() {
    for (const Coupled& collective : collectives_) {
      for (std::size_t r = 0; r < ranks_.size(); ++r) {
        const DependencyGraph& graph = ranks_[r].replay->graph();
        const auto measured = static_cast<double>(graph.duration(collective.span[r]));
        if (measured > 0)
          ranks_[r].replay->set_own_scale(collective.span[r], collective.transfer_ns[r] / measured);
      }
    }
  }

 private:
  static constexpr double kUnset = -std::numeric_limits<double>::infinity();

  // From the last replay's arrivals: each collective ends on each rank no earlier than the last
  // rank's arrival plus the rank's transfer (as the edits scale the collective). Returns whether
  // a floor moved by a nanosecond or more.
  bool raise_floors(bool edited, std::vector<double>& floors) {
    bool moved = false;
    for (std::size_t c = 0; c < collectives_.size(); ++c) {
      const Coupled& collective = collectives_[c];
      double last_arrival = kUnset;
      for (std::size_t r = 0; r < ranks_.size(); ++r) {
        const StepReplay& replay = *ranks_[r].replay;
        const double arrival =
            replay.predicted_times()[DependencyGraph::start_node(collective.span[r])];
        last_arrival = std::max(last_arrival, arrival - ranks_[r].offset_ns);
      }
      for (std::size_t r = 0; r < ranks_.size(); ++r) {
        StepReplay& replay = *ranks_[r].replay;
        const double scale = edited ? replay.edit_factor(collective.span[r]) : 1;
        const double floor = last_arrival + ranks_[r].offset_ns + collective.transfer_ns[r] * scale;
        double& kept = floors[c * ranks_.size() + r];
        if (floor < kept + 1) continue;
        kept = floor;
        replay.set_floor(DependencyGraph::end_node(collective.span[r]), floor);
        moved = true;
      }
    }
    return moved;
  }

  std::vector<Rank>& ranks_;
  std::vector<Coupled> collectives_;
};

// The host collectives of step `index` that every rank ran within it, with their graph spans and
// measured transfers; `uncoupled` counts the step's others.
std::vector<Coupled> step_collectives(std::vector<Rank>& ranks, std::size_t index,
                                      std::size_t& uncoupled) {
  std::vector<Coupled> coupled;
  const auto in_step = [&](const Rank& rank, const RankCollective& collective) {
    const Step& step = rank.context->steps().steps[index];
    return collective.start >= step.start && collective.end <= step.end;
  };
  for (const auto& [key, first] : ranks.front().collectives) {
    if (!in_step(ranks.front(), first)) continue;
    Coupled collective;
    double last_arrival = -std::numeric_limits<double>::infinity();
    for (Rank& rank : ranks) {
      const auto found = rank.collectives.find(key);
      if (found == rank.collectives.end() || !in_step(rank, found->second)) break;
      const std::uint32_t span =
          rank.replay->graph().local_span(found->second.span.track, found->second.span.index);
      if (span == trace::kNoIndex) break;
      collective.span.push_back(span);
      last_arrival =
          std::max(last_arrival, static_cast<double>(found->second.start) - rank.offset_ns);
    }
    if (collective.span.size() != ranks.size()) {
      ++uncoupled;
      continue;
    }
    for (Rank& rank : ranks) {
      const RankCollective& mine = rank.collectives.at(key);
      collective.transfer_ns.push_back(
          std::max(0.0, static_cast<double>(mine.end) - rank.offset_ns - last_arrival));
    }
    coupled.push_back(std::move(collective));
  }
  return coupled;
}

}  // namespace

MultiRankWhatIfResult predict_rank_steps(std::span<const RankInput> inputs,
                                         std::span<const WhatIfEdit> edits) {
  if (inputs.size() < 2) throw AnalyzerError("a multi-rank what-if needs two or more ranks");
  for (const WhatIfEdit& edit : edits) {
    if (edit.target == EditTarget::kLoaderWorkers) {
      throw AnalyzerError("--edit '" + edit.text +
                          "': a loader's worker count is replayed on one rank's trace at a time");
    }
  }
  MultiRankWhatIfResult result;
  result.matches.assign(edits.size(), 0);
  std::vector<Rank> ranks(inputs.size());
  std::size_t steps = std::numeric_limits<std::size_t>::max();
  for (std::size_t r = 0; r < inputs.size(); ++r) {
    const AnalysisContext& context = *inputs[r].context;
    if (context.steps().whole_trace) {
      throw AnalyzerError(inputs[r].source +
                          ": the trace has no step ranges (ProfilerStep#N, step N, ...): a "
                          "what-if replays steps");
    }
    Rank& rank = ranks[r];
    rank.context = &context;
    rank.edits = std::make_unique<ResolvedEdits>(context.trace(), edits);
    rank.replay = std::make_unique<StepReplay>(context, *rank.edits);
    for (std::size_t e = 0; e < edits.size(); ++e)
      result.matches[e] += rank.edits->matches()[e];
    find_rank_collectives(rank);
    steps = std::min(steps, context.steps().steps.size());
    RankWhatIf& out = result.ranks.emplace_back();
    out.source = inputs[r].source;
    out.rank = trace_rank(context.trace(), inputs[r].source);
    out.result.matches = rank.edits->matches();
  }
  for (std::size_t e = 0; e < edits.size(); ++e) {
    if (result.matches[e] == 0)
      throw AnalyzerError("--edit '" + edits[e].text + "' matches no event of any rank");
  }
  align_clocks(ranks);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    result.ranks[r].clock_offset_ns = ranks[r].offset_ns;
    result.uncoupled_collectives += ranks[r].unmodelled_collectives;
  }

  std::vector<WhatIfTally> tallies;
  tallies.reserve(ranks.size());
  for (RankWhatIf& rank : result.ranks)
    tallies.emplace_back(rank.result);
  std::vector<ReplayedStep> replayed(ranks.size());
  for (std::size_t index = 0; index < steps; ++index) {
    // A step that one rank cannot replay is left out on every rank: the others' waits depend on it.
    std::string why_not;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      if (!ranks[r].replay->prepare(index, replayed[r]) && why_not.empty())
        why_not = "on " + inputs[r].source + ", " + replayed[r].why_not;
    }
    if (why_not.empty()) {
      CoupledStep step(ranks, step_collectives(ranks, index, result.uncoupled_collectives));
      step.scale_collectives();
      const std::vector<double> replayed_ns = step.lengths(false);
      const std::vector<double> predicted_ns = step.lengths(true);
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        replayed[r].replayed_ns = replayed_ns[r];
        replayed[r].predicted_ns = std::max(
            predicted_ns[r], std::min(replayed[r].measured_ns, ranks[r].replay->gpu_floor()));
        replayed[r].replayed = true;
      }
      result.coupled_collectives += step.collective_count();
    }
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      if (!why_not.empty()) {
        replayed[r].replayed = false;
        replayed[r].why_not = why_not;
      }
      tallies[r].add(ranks[r].context->steps().steps[index], replayed[r]);
    }
  }
  for (WhatIfTally& tally : tallies)
    tally.finish();
  return result;
}

}  // namespace tscope::analyzer
