#pragma once
// The what-if edits resolved against one trace: per event name, the share of its measured time
// that host spans and GPU activities of that name take, the synchronizing calls whose wait for
// the GPU is removed and the spans replayed from a CUDA graph; and the chains to fuse. Each
// pattern is matched once per name, not once per event.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tscope/analyzer/whatif.h"
#include "tscope/report/name_regex.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

class ResolvedEdits {
 public:
  // Counts, per edit, the events of the trace it changes (matches()).
  ResolvedEdits(const trace::Trace& trace, std::span<const WhatIfEdit> edits);

  // What a host span (op, API call, range) of this name takes, as a share of its measured time;
  // its children take it too.
  double host_factor(trace::StringId name) { return known(name).host_factor; }
  // What a GPU kernel, copy or memset of this name takes, as a share of its measured time.
  double gpu_factor(trace::StringId name) { return known(name).gpu_factor; }
  // Whether a synchronizing call of this name no longer waits for the GPU.
  bool removes_sync(trace::StringId name) { return known(name).removes_sync; }
  // Whether host spans of this name run as one CUDA graph (their host work takes no time).
  bool graph_region(trace::StringId name) { return known(name).graph_region; }
  // What the host's waits for input take, as a share of their measured time (0 with workers=N).
  double input_wait_factor() const { return input_wait_factor_; }
  // Whether an edit scales host spans by name (NAME*F, op:NAME*F).
  bool scales_host_spans() const { return scales_host_spans_; }
  // The loader's worker count a `workers=N` edit sets, or 0.
  unsigned loader_workers() const { return loader_workers_; }

  const std::vector<std::size_t>& matches() const { return matches_; }

  // The `fuse:` edits in the order given.
  struct FuseChain {
    std::size_t edit = 0;
    double factor = 1;
    std::vector<NameRegex> members;
    // Per member, per name: 0 not yet matched, 1 not found, 2 found.
    std::vector<std::vector<std::uint8_t>> found_by_name;
  };
  std::size_t chain_count() const { return chains_.size(); }
  double chain_factor(std::size_t chain) const { return chains_[chain].factor; }
  std::size_t chain_length(std::size_t chain) const { return chains_[chain].members.size(); }
  // Calls on_run(first) for each run of `names` (one track's spans in order) whose names match
  // the chain's members in order, left to right; runs do not overlap.
  template <typename OnRun>
  void for_each_run(std::size_t chain, std::span<const trace::StringId> names, OnRun on_run) {
    const std::size_t length = chain_length(chain);
    for (std::size_t first = 0; first + length <= names.size();) {
      std::size_t member = 0;
      while (member < length && chain_member(chain, member, names[first + member]))
        ++member;
      if (member < length) {
        ++first;
        continue;
      }
      on_run(first);
      first += length;
    }
  }

 private:
  struct NameEffect {
    double host_factor = 1;
    double gpu_factor = 1;
    bool removes_sync = false;
    bool graph_region = false;
    bool set = false;
  };
  NameEffect& known(trace::StringId name);
  bool chain_member(std::size_t chain, std::size_t member, trace::StringId name);
  // Whether edit `e`'s pattern is found in `name`, matched once per name.
  bool pattern_found(std::size_t e, trace::StringId name);
  void count_matches();

  const trace::Trace* trace_;
  std::vector<WhatIfEdit> edits_;
  // Per edit; none for kInputWait, kFuse and kLoaderWorkers.
  std::vector<std::optional<NameRegex>> patterns_;
  std::vector<NameEffect> by_name_;
  // Per edit, per name: 0 not yet matched, 1 not found, 2 found.
  std::vector<std::vector<std::uint8_t>> found_by_name_;
  double input_wait_factor_ = 1;
  unsigned loader_workers_ = 0;
  bool scales_host_spans_ = false;
  std::vector<std::size_t> matches_;
  std::vector<FuseChain> chains_;
};

}  // namespace tscope::analyzer
