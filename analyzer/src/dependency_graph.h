#pragma once
// The host-GPU dependency graph of one time window (a step) that the critical path walks: a start
// and an end node per span of the host threads and GPU streams that overlaps the window (and, for
// the GPU activities in it, their launch calls and each stream's previous activity), and edges for
// host order on each thread, GPU activities, launch -> activity, stream order, synchronizations,
// cross-stream event waits and handoffs between host threads. Edges are kept in a list and by
// source (CSR) with a topological order, so each pass over the graph is linear.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "event_classes.h"
#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

enum class EdgeKind : std::uint8_t {
  kHostOrder,    // consecutive points of one host thread; the host ran `owner` in between
  kGpuActivity,  // a GPU activity's start to its end
  kLaunch,       // a launch call's start to its activity's start
  kStreamOrder,  // an activity's end to the next one's start on the stream
  kEventWait,    // another stream's awaited activity end to this stream's next activity start
  kSyncReturn,   // the awaited activity's end to the synchronizing call's end
  // Work on one host thread to the end of another thread's wait for it (a handoff flow: a loaded
  // batch to the wait for it, a collective to the wait for its result).
  kHandoff,
  // A span that queued work to the start of the other thread's span that ran it (an enqueue flow:
  // a collective queued to a communication thread).
  kEnqueue,
  // The start of the activity that freed a slot in a full launch queue to the end of the launch
  // call that CUDA blocked until then.
  kQueueSlot,
};

inline constexpr std::uint32_t kNoEdge = std::numeric_limits<std::uint32_t>::max();

struct DependencyEdge {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::uint32_t owner = 0;  // the span (global index) the time between belongs to, or kNoIndex
  EdgeKind kind = EdgeKind::kHostOrder;
  // Host order inside a wait for input (a DataLoader iterator, say): the loader's own ops count as
  // input wait, as in the time breakdown, where waiting for data outranks the ops under it. On a
  // handoff: the waiting span is a wait for input.
  bool in_input_wait = false;
};

class DependencyGraph {
 public:
  // An empty graph; build() fills it.
  explicit DependencyGraph(const AnalysisContext& context);

  // The graph of [begin, end), in place of the previous one. Memory follows the window's events,
  // not the trace's: a report builds one graph per step, each in the memory of the last.
  void build(trace::TimeNs begin, trace::TimeNs end);

  // Node 2 * s is the start of the graph's span s, 2 * s + 1 its end.
  static std::uint32_t start_node(std::uint32_t span) { return 2 * span; }
  static std::uint32_t end_node(std::uint32_t span) { return 2 * span + 1; }
  static std::uint32_t span_of(std::uint32_t node) { return node / 2; }
  static bool is_end(std::uint32_t node) { return (node & 1) != 0; }

  std::size_t node_count() const { return 2 * events_.size(); }
  std::size_t span_count() const { return events_.size(); }
  // The graph's span of (track, index), or kNoIndex when the graph does not hold it.
  std::uint32_t local_span(std::uint32_t track, std::uint32_t index) const;
  trace::EventRef event(std::uint32_t span) const { return events_[span]; }
  // Kept by node, in the graph's own order: each pass over the graph asks for every node's time,
  // and the trace's columns are far apart in memory.
  trace::TimeNs time(std::uint32_t node) const { return times_[node]; }
  // The measured length of the graph's span.
  trace::TimeNs duration(std::uint32_t span) const {
    return time(end_node(span)) - time(start_node(span));
  }

  const std::vector<DependencyEdge>& edges() const { return edges_; }
  // Edge indices out of a node.
  std::span<const std::uint32_t> out_edges(std::uint32_t node) const {
    return {out_edges_.data() + out_begin_[node], out_edges_.data() + out_begin_[node + 1]};
  }
  // Every node, each after all its predecessors (nodes on a cycle, which only malformed
  // timestamps make, are left out).
  const std::vector<std::uint32_t>& topological_order() const { return order_; }
  // Whether a host node waits on other work: a call's end that a kSyncReturn or kQueueSlot edge
  // from the GPU or a kHandoff edge from another thread enters, a span's start that a kEnqueue
  // edge enters. The
  // host time before it was then waiting, not working.
  bool waits_on_other_work(std::uint32_t node) const { return waits_[node] != 0; }
  // The kind of GPU work of a span on a GPU stream (GpuWork::kNone for other records there).
  GpuWork gpu_work_of(std::uint32_t track, std::uint32_t index);

  // A host-order edge into a node that waits on other work, from within the waiting call or, for
  // a span's start, from the idle thread: the host was blocked, so the edge carries no work.
  bool is_blocked_wait(const DependencyEdge& edge) const {
    return edge.kind == EdgeKind::kHostOrder && waits_on_other_work(edge.to) &&
           (edge.owner == trace::kNoIndex || edge.to == end_node(edge.owner));
  }

  // When an edge's source lets its target go: work edges (host work, a GPU activity) at their
  // end; a launch when its call returns (or its activity starts, if earlier), since the call
  // queues the work; other dependencies at their source.
  trace::TimeNs arrival(const DependencyEdge& edge) const;
  // Per node, the dependency it waited for last (kNoEdge where no edge enters it): the edge with
  // the latest arrival, the earlier edge winning a tie (host order and activities come first).
  // `latest` is scratch, each node's latest arrival.
  void find_binding_edges(std::vector<std::uint32_t>& binding,
                          std::vector<trace::TimeNs>& latest) const;

 private:
  void select_spans(trace::TimeNs begin, trace::TimeNs end);
  // Sorts the run of `spans` from `first` on and merges it with the sorted ones before it.
  void merge_run(std::vector<std::uint32_t>& spans, std::size_t first);

  // The GPU activities of one stream in start order, with their launch calls' starts (a stream
  // runs its work in launch order, so both are sorted).
  struct StreamWork {
    std::uint32_t track = 0;
    std::vector<std::uint32_t> spans;         // indices into the track
    std::vector<std::uint32_t> graph_spans;   // the same, as the graph's spans
    std::vector<trace::TimeNs> launch_start;  // kNoLaunchTime where none is known
  };
  static constexpr trace::TimeNs kNoLaunchTime = INT64_MIN;

  // The last activity of `stream` that started by `time`, or kNoIndex.
  std::uint32_t last_started_by(const StreamWork& stream, trace::TimeNs time) const;
  // The last activity of `stream` launched by `time` (what an event recorded then waits for).
  std::uint32_t last_launched_by(const StreamWork& stream, trace::TimeNs time) const;
  const StreamWork* stream_of(std::uint32_t process, std::int64_t stream) const;
  std::span<const StreamWork> streams() const { return {streams_.data(), stream_count_}; }

  void add_host_order(std::uint32_t track);
  void add_stream(std::uint32_t track);
  void add_queue_slots(const StreamWork& stream);
  void add_synchronizations();
  void add_handoffs(trace::TimeNs begin, trace::TimeNs end);
  // Whether the graph's span is a wait for input (a DataLoader iterator, say).
  bool is_input_wait(std::uint32_t span);
  void add_edge(std::uint32_t from, std::uint32_t to, EdgeKind kind,
                std::uint32_t owner = trace::kNoIndex, bool in_input_wait = false);
  void index_edges();

  const AnalysisContext* context_;
  const trace::Trace* trace_;
  // The graph's spans, by track and then index; track t's are [track_first_[t], track_first_[t+1]).
  std::vector<trace::EventRef> events_;
  std::vector<trace::TimeNs> times_;  // by node
  std::vector<std::uint32_t> track_first_;
  std::vector<DependencyEdge> edges_;
  std::vector<std::uint32_t> out_begin_, out_edges_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint8_t> waits_;  // by node: waits_on_other_work
  // The trace's handoff and enqueue flows between host spans, by the start of their target.
  struct Handoff {
    trace::TimeNs wait_start = 0;
    trace::EventRef work;  // the source: the awaited work, or the span that queued
    trace::EventRef wait;  // the target: the waiting span, or the span that ran the queued work
    bool enqueue = false;
  };
  std::vector<Handoff> handoffs_;
  std::vector<StreamWork> streams_;
  std::size_t stream_count_ = 0;  // streams_ in use; the rest keep their memory for the next graph
  ClassByName<GpuWork> gpu_work_;
  ClassByName<bool> input_wait_;
  ClassByName<bool> blocking_call_;
  // Scratch kept between builds: per track, the spans of the window; the spans open on a host
  // thread; nodes' unmet predecessors; each node's next out-edge slot; the synchronizing calls.
  std::vector<std::vector<std::uint32_t>> selected_;
  std::vector<std::uint32_t> merged_;
  std::vector<std::uint32_t> open_spans_;
  std::vector<std::uint32_t> waiting_;
  std::vector<std::uint32_t> next_out_;
  std::vector<std::uint32_t> blocking_calls_;
  std::vector<std::uint32_t> launch_calls_;  // add_stream's: per activity, its launch call
};

}  // namespace tscope::analyzer
