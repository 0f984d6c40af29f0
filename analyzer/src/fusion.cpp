#include "tscope/analyzer/fusion.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "event_classes.h"
#include "fused_alternatives.h"
#include "kernel_families.h"
#include "trace_names.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kFusion = "fusion";
constexpr std::array kFindingKinds{kFusion};

// Below this many flops per byte moved an op is bound by memory bandwidth on any current CPU or
// GPU (their machine balance is well above it), so fusing it saves its memory traffic.
constexpr double kMemoryBoundFlopsPerByte = 8.0;
constexpr std::size_t kTopChains = 5;
constexpr std::size_t kMaxEvidence = 16;

// One occurrence of a chain: its members, the time they ran and the gaps between them.
struct ChainOccurrence {
  std::vector<EventRef> members;
  std::vector<StringId> names;
  double run_ns = 0;
  double gap_ns = 0;
  double fused_ns = 0;  // the estimated time of one kernel doing the same work
  // Of run_ns, what the fused kernel still computes (estimate_fused_time).
  double arithmetic_ns = 0;
  bool same_launcher = false;
  bool fed_by_matmul = false;  // the first member takes a matrix product's output
};

struct ChainTotals {
  std::size_t occurrences = 0;
  double run_ns = 0;
  double gap_ns = 0;
  double fused_ns = 0;
  double arithmetic_ns = 0;
  bool same_launcher = false;
  bool from_dataflow = false;
  bool fed_by_matmul = true;  // in every occurrence
  std::vector<EventRef> evidence;
};

// The op detail of span i when it records its dataflow (what it wrote). The tensor column answers
// for the spans that do not, which are most, without reading the side tables.
std::optional<trace::OpView> op_info(const trace::Trace& trace, std::uint32_t track,
                                     std::uint32_t i) {
  if (trace.track(track).spans().tensor_run(i).written == 0) return std::nullopt;
  return trace.op(track, i);
}

bool is_memory_bound(const trace::OpView& op) {
  const double bytes = static_cast<double>(op.bytes_read + op.bytes_written);
  return bytes > 0 && static_cast<double>(op.flops) / bytes < kMemoryBoundFlopsPerByte;
}

bool reads_output_of(const trace::OpView& consumer, const trace::OpView& producer) {
  for (const std::uint64_t tensor : consumer.tensors_read) {
    if (std::find(producer.tensors_written.begin(), producer.tensors_written.end(), tensor) !=
        producer.tensors_written.end()) {
      return true;
    }
  }
  return false;
}

// The time of one op doing a chain's work, from what its members show. The member that moved its
// bytes fastest shows the bandwidth this machine gives the chain; the time a member took beyond
// moving its own bytes at that bandwidth is arithmetic (a GELU's exponential, a dropout mask's
// random draws), which the fused op still does. It saves the members' memory traffic and keeps
// their arithmetic: fused bytes at that bandwidth, plus the members' arithmetic.
void estimate_fused_time(const trace::Trace& trace, ChainOccurrence& chain,
                         const std::vector<trace::OpView>& ops, double fused_bytes) {
  const trace::SpanColumns& spans = trace.track(chain.members.front().track).spans();
  const auto member_ns = [&](std::size_t k) {
    return static_cast<double>(spans.duration[chain.members[k].index]);
  };
  const auto member_bytes = [&](std::size_t k) {
    return static_cast<double>(ops[k].bytes_read + ops[k].bytes_written);
  };
  double best_bytes_per_ns = 0;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (member_ns(k) > 0)
      best_bytes_per_ns = std::max(best_bytes_per_ns, member_bytes(k) / member_ns(k));
  }
  chain.fused_ns = chain.run_ns;
  if (best_bytes_per_ns <= 0) return;
  double arithmetic_ns = 0;
  for (std::size_t k = 0; k < ops.size(); ++k)
    arithmetic_ns += std::max(0.0, member_ns(k) - member_bytes(k) / best_bytes_per_ns);
  chain.arithmetic_ns = std::min(chain.run_ns, arithmetic_ns);
  chain.fused_ns = std::min(chain.run_ns, fused_bytes / best_bytes_per_ns + arithmetic_ns);
}

// Our engine's ops carry their dataflow: a chain is a run of memory-bound leaf ops on one
// thread inside one enclosing range, each reading a tensor the previous one wrote. (The last
// gradient of a backward pass feeds the first optimizer update, but no one kernel can do both.)
void dataflow_chains(const trace::Trace& trace, std::uint32_t track_index,
                     std::vector<ChainOccurrence>& chains) {
  const trace::SpanColumns& spans = trace.track(track_index).spans();
  std::vector<std::uint32_t> leaves;
  std::vector<std::uint32_t> enclosing;  // per leaf, the innermost range around it that is no op
  std::vector<std::uint32_t> open_ranges;
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    while (!open_ranges.empty() && spans.end(open_ranges.back()) <= spans.start[i])
      open_ranges.pop_back();
    if (!op_info(trace, track_index, i)) {
      open_ranges.push_back(i);
      continue;
    }
    const std::uint32_t range = open_ranges.empty() ? trace::kNoIndex : open_ranges.back();
    // An op that encloses the next op is a composite (linear = matmul + add); its parts count.
    if (!leaves.empty() && spans.end(leaves.back()) > spans.start[i]) {
      leaves.back() = i;
      enclosing.back() = range;
    } else {
      leaves.push_back(i);
      enclosing.push_back(range);
    }
  }
  ChainOccurrence chain;
  std::uint32_t chain_range = trace::kNoIndex;
  std::vector<trace::OpView> ops;
  const auto flush = [&] {
    if (chain.members.size() >= 2) {
      // The fused op still reads the chain's outside inputs and writes its last output.
      double fused_bytes = static_cast<double>(ops.front().bytes_read + ops.back().bytes_written);
      for (std::size_t k = 1; k < ops.size(); ++k) {
        if (ops[k].tensors_read.empty()) continue;
        std::size_t outside = 0;
        for (const std::uint64_t tensor : ops[k].tensors_read) {
          const bool from_chain = std::any_of(
              ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(k),
              [&](const trace::OpView& earlier) {
                return std::find(earlier.tensors_written.begin(), earlier.tensors_written.end(),
                                 tensor) != earlier.tensors_written.end();
              });
          if (!from_chain) ++outside;
        }
        fused_bytes += static_cast<double>(ops[k].bytes_read) * static_cast<double>(outside) /
                       static_cast<double>(ops[k].tensors_read.size());
      }
      estimate_fused_time(trace, chain, ops, fused_bytes);
      chains.push_back(chain);
    }
    chain = {};
    ops.clear();
  };
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const std::uint32_t i = leaves[k];
    const trace::OpView op = *op_info(trace, track_index, i);
    // A matrix product is library GEMM work even where its shape leaves it memory-bound: it ends
    // a chain, and the bias and activation after it are its epilogue (fed_by_matmul below).
    if (!is_memory_bound(op) || is_matrix_product_op(trace.string(spans.name[i]))) {
      flush();
      continue;
    }
    if (!chain.members.empty() && enclosing[k] != chain_range) flush();
    if (chain.members.empty()) {
      chain_range = enclosing[k];
      // A matmul just before, in the same range, whose product the first op reads.
      const std::optional<trace::OpView> before = k > 0 && enclosing[k - 1] == enclosing[k]
                                                      ? op_info(trace, track_index, leaves[k - 1])
                                                      : std::nullopt;
      chain.fed_by_matmul = before && trace.string(spans.name[leaves[k - 1]]) == "matmul" &&
                            reads_output_of(op, *before);
    }
    if (!ops.empty() && !reads_output_of(op, ops.back())) {
      // An op making a side input for the next one (dropout's mask, say) belongs to the chain
      // when that next op reads both it and the chain's last output.
      const std::optional<trace::OpView> next =
          k + 1 < leaves.size() ? op_info(trace, track_index, leaves[k + 1]) : std::nullopt;
      const bool feeds_next = next && is_memory_bound(*next) && reads_output_of(*next, op) &&
                              reads_output_of(*next, ops.back());
      if (!feeds_next) flush();
    }
    if (!ops.empty())
      chain.gap_ns += static_cast<double>(spans.start[i] - spans.end(chain.members.back().index));
    chain.members.push_back({EventKind::kSpan, track_index, i});
    chain.names.push_back(spans.name[i]);
    chain.run_ns += static_cast<double>(spans.end(i) - spans.start[i]);
    ops.push_back(op);
  }
  flush();
}

// Imported traces have no dataflow: a chain is a run of adjacent memory-bound kernels on one
// stream, classified by name. Without byte counts the fused kernel is estimated to take as long
// as the chain's longest kernel, which moves about as much data as the fused one must.
void stream_chains(const AnalysisContext& context, std::uint32_t track_index,
                   std::vector<ChainOccurrence>& chains) {
  const trace::Trace& trace = context.trace();
  const trace::SpanColumns& spans = trace.track(track_index).spans();
  // Kernel names repeat millions of times; classify each distinct name once.
  std::unordered_map<StringId, bool> fusable_names;
  const auto fusable = [&](StringId name) {
    const auto [slot, inserted] = fusable_names.try_emplace(name, false);
    if (inserted) slot->second = is_fusable(kernel_family(trace.string(name)));
    return slot->second;
  };
  ChainOccurrence chain;
  double longest = 0;
  std::uint64_t launcher = 0;
  const auto flush = [&] {
    if (chain.members.size() >= 2) {
      chain.fused_ns = longest;
      chains.push_back(chain);
    }
    chain = {};
    longest = 0;
  };
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (spans.category[i] != trace::Category::kKernel) continue;
    if (!fusable(spans.name[i])) {
      flush();
      continue;
    }
    const std::uint64_t external = spans.external_correlation_id(i);
    if (!chain.members.empty()) {
      const TimeNs gap = spans.start[i] - spans.end(chain.members.back().index);
      if (gap > context.options().fusion_max_gap_ns || gap < 0) flush();
    }
    if (chain.members.empty()) {
      launcher = external;
      chain.same_launcher = external != 0;
    } else {
      chain.gap_ns += static_cast<double>(spans.start[i] - spans.end(chain.members.back().index));
      chain.same_launcher &= external == launcher;
    }
    const auto length = static_cast<double>(spans.end(i) - spans.start[i]);
    chain.members.push_back({EventKind::kSpan, track_index, i});
    chain.names.push_back(spans.name[i]);
    chain.run_ns += length;
    longest = std::max(longest, length);
  }
  flush();
}

// Kernel names run to hundreds of characters of namespaces and template arguments: drop the
// return type and PyTorch's namespace so the functor that tells kernels apart stays visible.
std::string short_kernel_name(std::string_view name) {
  constexpr std::size_t kWidth = 60;
  constexpr std::string_view kNamespace = "at::native::";
  if (name.starts_with("void ")) name.remove_prefix(5);
  std::string text;
  for (std::size_t at = 0; at < name.size();) {
    if (name.substr(at, kNamespace.size()) == kNamespace) {
      at += kNamespace.size();
      continue;
    }
    text += name[at++];
  }
  if (text.size() > kWidth) text = text.substr(0, kWidth - 3) + "...";
  return text;
}

std::string chain_label(const trace::Trace& trace, const std::vector<StringId>& names) {
  std::string label;
  for (const StringId name : names) {
    if (!label.empty()) label += " -> ";
    label += short_kernel_name(trace.string(name));
  }
  return label;
}

}  // namespace

std::vector<Finding> find_fusion_opportunities(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const StepSet& steps = context.steps();
  std::vector<ChainOccurrence> chains;
  bool has_dataflow = false;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind == trace::TrackKind::kHostThread) {
      const std::size_t before = chains.size();
      dataflow_chains(trace, track_index, chains);
      has_dataflow |= chains.size() != before;
    }
  }
  if (!has_dataflow) {
    for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
      if (trace.track(track_index).info().kind == trace::TrackKind::kGpuStream) {
        stream_chains(context, track_index, chains);
      }
    }
  }

  std::map<std::vector<StringId>, ChainTotals> by_signature;
  for (const ChainOccurrence& chain : chains) {
    const trace::SpanColumns& spans = trace.track(chain.members.front().track).spans();
    if (steps.step_at(spans.start[chain.members.front().index]) == steps.steps.size()) continue;
    ChainTotals& totals = by_signature[chain.names];
    ++totals.occurrences;
    totals.run_ns += chain.run_ns;
    totals.gap_ns += chain.gap_ns;
    totals.fused_ns += chain.fused_ns;
    totals.arithmetic_ns += chain.arithmetic_ns;
    totals.same_launcher |= chain.same_launcher;
    totals.fed_by_matmul &= chain.fed_by_matmul;
    totals.from_dataflow = has_dataflow;
    if (totals.evidence.empty()) {
      totals.evidence.assign(chain.members.begin(),
                             chain.members.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                         chain.members.size(), kMaxEvidence)));
    }
  }

  const double step_count = context.step_count();
  const double step_ns = steps.mean_ns();
  std::vector<Finding> findings;
  for (const auto& [names, totals] : by_signature) {
    // A chain worth a fused kernel recurs: in every step, or at least twice, or within one op.
    const bool recurring = static_cast<double>(totals.occurrences) >= std::max(2.0, step_count);
    if (!recurring && !totals.same_launcher) continue;
    const double saving = (totals.run_ns - totals.fused_ns + totals.gap_ns) / step_count;
    if (saving <= 0) continue;
    Finding finding;
    finding.kind = kFusion;
    const double share = step_ns > 0 ? saving / step_ns : 0;
    finding.severity = severity_for_share(share);
    const double per_step = static_cast<double>(totals.occurrences) / step_count;
    finding.title = "Fuse " + std::to_string(names.size()) + " memory-bound " +
                    (totals.from_dataflow ? "ops" : "kernels") + ": " + chain_label(trace, names);
    finding.cost = {(totals.run_ns + totals.gap_ns) / step_count,
                    step_ns > 0 ? (totals.run_ns + totals.gap_ns) / step_count / step_ns : 0, 0};
    finding.estimated_gain_ns_per_step = saving;
    finding.evidence = totals.evidence;
    finding.metrics = {{"chain_length", static_cast<double>(names.size()), "count"},
                       {"occurrences", static_cast<double>(totals.occurrences), "count"},
                       {"occurrences_per_step", per_step, "count"},
                       {"chain_ns_per_step", totals.run_ns / step_count, "ns"},
                       {"launch_gap_ns_per_step", totals.gap_ns / step_count, "ns"},
                       {"saving_ns_per_step", saving, "ns"},
                       {"saving_share", share, "ratio"},
                       {"arithmetic_ns_per_step", totals.arithmetic_ns / step_count, "ns"}};
    finding.explanation =
        "This chain runs " + std::to_string(totals.occurrences) + " times (" +
        format_duration(totals.run_ns / static_cast<double>(totals.occurrences)) +
        " each, plus launch gaps); each member " +
        (totals.from_dataflow ? "reads the tensor the previous one wrote"
                              : "runs right after the previous one on the same stream") +
        ", so intermediate results make a round trip through memory. One fused kernel would "
        "read the inputs and write the output once.";
    if (totals.arithmetic_ns > 0) {
      finding.explanation +=
          " Of each run, " +
          format_duration(totals.arithmetic_ns / static_cast<double>(totals.occurrences)) +
          " is arithmetic (the members' time beyond moving their bytes at the bandwidth of the "
          "fastest of them), which the fused kernel still does.";
    }
    std::vector<std::string_view> member_names;
    for (const StringId name : names)
      member_names.push_back(trace.string(name));
    // The chain replaced by one span of the fused time at each of its runs.
    const std::vector<std::string> chain(member_names.begin(), member_names.end());
    finding.fix = {fuse_edit(chain, totals.run_ns > 0 ? totals.fused_ns / totals.run_ns : 1)};
    const std::string alternative = totals.from_dataflow
                                        ? fused_alternative(member_names, totals.fed_by_matmul)
                                        : std::string();
    finding.recommendation =
        "Replace the chain with " +
        (alternative.empty()
             ? std::string("one fused kernel (a fused op, torch.compile, or a hand-written kernel)")
             : alternative) +
        ": saves about " + format_duration(saving) + " (" + format_percent(share) + ") per step.";
    findings.push_back(std::move(finding));
  }
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return a.estimated_gain_ns_per_step > b.estimated_gain_ns_per_step;
  });
  if (findings.size() > kTopChains) findings.resize(kTopChains);
  return findings;
}

extern constinit const Analysis kFusionAnalysis{
    "fusion", kFindingKinds, {}, &findings_of<&find_fusion_opportunities>};

}  // namespace tscope::analyzer
