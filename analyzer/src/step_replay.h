#pragma once
// The discrete-event replay of one step over its dependency graph. Each node happens when the
// last of its dependencies lets it go: host threads run their spans in order for their measured
// self time, a kernel starts no earlier than its launch call returns and its stream's previous
// work ends, synchronizing calls return after the work they wait for. The dependency that was
// satisfied last in the measured run keeps its measured length (the launch, queue or return
// latency the trace shows); the others keep only their own work, so they bind only once an edit
// makes them the latest. Replaying without edits therefore reproduces the measured step.

#include <span>
#include <string>
#include <vector>

#include "cpu_contention.h"
#include "dependency_graph.h"
#include "tscope/analyzer/steps.h"
#include "whatif_edits.h"

namespace tscope::analyzer {

struct ReplayedStep {
  double measured_ns = 0;
  double replayed_ns = 0;   // without edits
  double predicted_ns = 0;  // with the edits
  bool replayed = false;
  std::string why_not;  // when not replayed
};

// One replay serves every step in turn, each graph in the memory of the last.
class StepReplay {
 public:
  StepReplay(const AnalysisContext& context, ResolvedEdits& edits);

  // Step `index` of the context's steps.
  ReplayedStep replay(std::size_t index);

  // The same in parts, for a replay coupled with other ranks' (multi-rank what-if): prepare()
  // builds the step's graph and applies the edits, or says in `result.why_not` why the step
  // cannot be replayed; then length() replays it, as often as the coupling needs, with the own
  // scales and floors set in between. A replay() prepares from scratch.
  bool prepare(std::size_t index, ReplayedStep& result);
  // The prepared step's length, replayed with or without the edits.
  double length(bool edited) { return step_length(run(edited), measured_ns_); }
  // A span's own time (a host span's outside its children, a GPU activity's) scaled in both
  // replays, on top of the edits (a collective's wait for later ranks taken out of it).
  void set_own_scale(std::uint32_t span, double scale) { own_scale_[span] = scale; }
  // A node that happens no earlier than `time` in both replays (a collective's end, when its last
  // rank arrives and the transfer is done); clear_floors() lifts them all.
  void set_floor(std::uint32_t node, double time) { floor_[node] = time; }
  void clear_floors();
  // What the edits make of a span's time, as a share of the measured.
  double edit_factor(std::uint32_t span) const { return factor_[span]; }
  // The least time the prepared step's GPU work takes under the edits (see gpu_floor_ns).
  double gpu_floor() const { return gpu_floor_; }

  // The graph of the last step replayed, and the times of its nodes with the edits (valid after a
  // replay() that replayed its step); the step range is graph span step_span() (kNoIndex for the
  // whole trace as one step).
  const DependencyGraph& graph() const { return graph_; }
  const std::vector<double>& predicted_times() const { return times_; }
  std::uint32_t step_span() const { return step_span_; }

 private:
  // The step's length in a replay that gave the nodes `times`: its step range's, or for the whole
  // trace as one step, from its start to where the main thread's and GPU's work last ends.
  double step_length(const std::vector<double>& times, double measured_ns);
  // Per graph span, the share of its measured time it takes under the edits.
  void scale_spans();
  // What the edits leave of the loaders' work: the input-wait factor times the loads' own.
  double loader_work_share();
  // Per host span, the factor on its own time from the cores it shares with the loaders `then`.
  void share_cores(CpuContention::Loaders then);
  // The step's length with workers=N loader threads: at least the time they take to load its
  // batch, sharing the CPUs with the training thread.
  double length_with_loader_workers();
  // The `fuse:` edits: each run of a chain becomes its first member, taking the chain's factor of
  // the run's summed time; the later members take none, and neither do their launch calls.
  void fuse_chains();
  void fuse_run(std::span<const std::uint32_t> members, double factor, bool gpu);
  // The length of edge `e` in the replay: its measured one where it bound its target, else its
  // own work; with `edited`, as the edits change it (negative: the edit removes the edge).
  double edge_length(std::uint32_t e, bool edited) const;
  // Replays the graph; returns the time of each node.
  const std::vector<double>& run(bool edited);
  // The least time the step's GPU work takes under the edits: the busiest stream's activities of
  // the step back to back. The replay pins the steps before and after a step at their measured
  // times, so nothing else holds back a step whose host work an edit removes while its GPU work
  // runs on asynchronously: in a run of such steps the GPU would set the pace.
  double gpu_floor_ns(std::size_t index);
  // Why the graph cannot predict the step, or empty.
  std::string missing_dependencies(const Step& step);

  const AnalysisContext* context_;
  const trace::Trace* trace_;
  ResolvedEdits* edits_;
  DependencyGraph graph_;
  std::vector<std::uint32_t> binding_;
  std::vector<trace::TimeNs> latest_;
  const CpuContention* contention_ = nullptr;  // where an edit changes the loaders' work
  std::vector<double> factor_;                 // by graph span
  std::vector<double> cpu_share_factor_;       // by graph span: CpuContention::own_time_factor
  std::vector<std::uint8_t> removed_;          // by graph span: a sync call that no longer waits
  std::vector<std::uint8_t> in_graph_;        // by graph span: host work replayed from a CUDA graph
  std::vector<std::uint32_t> depth_;          // by graph span: nesting depth on its host thread
  std::vector<std::uint8_t> fused_follower_;  // by graph span: a fused chain's later member
  std::vector<std::uint32_t> sequence_;       // scratch of fuse_chains: one track's candidates
  std::vector<trace::StringId> names_;        // and their names
  std::vector<std::uint8_t> ordered_;         // by node: in the topological order
  std::vector<double> times_;                 // by node, of the last run
  std::vector<double> own_scale_;             // by graph span: set_own_scale
  std::vector<double> floor_;                 // by node: set_floor
  double measured_ns_ = 0;                    // of the prepared step
  double gpu_floor_ = 0;                      // of the prepared step
  std::uint32_t step_span_ = trace::kNoIndex;
  std::vector<double> stream_busy_;  // by track: scratch of gpu_floor_ns
  std::vector<std::uint32_t> open_;  // scratch: the host spans open at a span's start
};

}  // namespace tscope::analyzer
