#pragma once
// One problem an analysis found in a trace: what it is, how much it costs, the events that show
// it, and what to do about it. Every analysis returns these; every renderer prints them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/trace/event_ref.h"

namespace tscope::analyzer {

enum class Severity : std::uint8_t { kInfo, kLow, kMedium, kHigh };

std::string_view to_string(Severity severity);

// Time findings fill the time fields; memory findings fill bytes.
struct FindingCost {
  double time_per_step_ns = 0;
  double share_of_step = 0;  // 0..1 of the mean step time
  std::uint64_t bytes = 0;
};

// A named figure behind a finding, kept machine-readable for CI and tests.
struct Metric {
  std::string name;
  double value = 0;
  std::string unit;  // "ns", "bytes", "count", "ratio", ...
};

// Where a finding's estimated gain comes from.
enum class GainBasis : std::uint8_t {
  kEstimate,  // the analysis' own arithmetic: the analysis run alone, or a trace the replay
              // cannot model
  kReplay,    // the what-if replay of the finding's fix alone (whatif.h, fix_plan.h)
  kNone,      // no fix the replay models: no time gain claimed (bytes gains stand)
};

std::string_view to_string(GainBasis basis);

struct Finding {
  std::string kind;  // stable identifier, listed in docs/analyzer.md
  Severity severity = Severity::kInfo;
  std::string title;
  FindingCost cost;
  double estimated_gain_ns_per_step = 0;
  std::uint64_t estimated_gain_bytes = 0;
  std::vector<trace::EventRef> evidence;
  // A multi-rank finding's evidence points into this rank's trace; -1: into the one trace analyzed.
  int evidence_rank = -1;
  std::string explanation;
  std::string recommendation;
  // The recommendation as what-if edits (whatif.h's forms), where the replay can model it.
  std::vector<std::string> fix;
  GainBasis gain_basis = GainBasis::kEstimate;
  // The kind of the finding whose gain this one's fix shares (the same edits): the saving is
  // claimed once, there, and this finding's gain is 0. Empty otherwise.
  std::string gain_counted_under;
  std::vector<Metric> metrics;

  // The value of metric `name`; throws std::out_of_range when the finding has none.
  double metric(std::string_view name) const;
};

// Severity from a share of step time, with the thresholds the TensorFlow profiler uses for input
// stalls (high from 20%, medium from 5%); low from 1%, info below.
Severity severity_for_share(double share);

// Most costly first: severity, then time per step, then bytes.
void sort_by_cost(std::vector<Finding>& findings);

}  // namespace tscope::analyzer
