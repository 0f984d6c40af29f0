#include "step_time_attribution.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "event_classes.h"
#include "span_window.h"

namespace tscope::analyzer {
namespace {

WorkKind work_kind(GpuWork work) {
  switch (work) {
    case GpuWork::kCommunication:
      return WorkKind::kCollective;
    case GpuWork::kCopy:
      return WorkKind::kCopy;
    case GpuWork::kMemset:
      return WorkKind::kMemset;
    default:
      return WorkKind::kKernel;
  }
}

// Host calls that return only once the GPU has caught up: while in them, the step waits for the
// GPU, and its time is the GPU work that runs meanwhile.
bool waits_for_gpu(Category category, std::string_view name) {
  return is_sync_call(category, name) || (is_runtime_call(category) && is_blocking_copy_call(name));
}

constexpr StringId kNoOp = ~StringId{0};

// Walks the main thread's spans of one step at a time with a stack of the open ones, attributing
// the time between consecutive starts and ends to what is open then.
class StepTimeAttributor {
 public:
  explicit StepTimeAttributor(const AnalysisContext& context) : context_(context) {}

  void attribute_step(const Step& step) {
    if (context_.main_thread() == trace::kNoIndex) {
      result_.not_attributed_ns += static_cast<double>(step.end - step.start);
      return;
    }
    const trace::Trace& trace = context_.trace();
    const trace::SpanColumns& spans = trace.track(context_.main_thread()).spans();
    open_.clear();
    open_waits_ = 0;
    cursor_ = step.start;
    const auto first = std::lower_bound(spans.start.begin(), spans.start.end(), step.start);
    for (auto at = first; at != spans.start.end() && *at < step.end; ++at) {
      const auto i = static_cast<std::uint32_t>(at - spans.start.begin());
      const Category category = spans.category[i];
      const bool is_op = category == Category::kCpuOp;
      const bool waits =
          !is_op && waits_by_name_.get(trace, category, spans.name[i], waits_for_gpu);
      if (!is_op && !waits) continue;
      attribute_until(spans.start[i]);
      open_.push_back({std::min(spans.end(i), step.end), is_op ? spans.name[i] : kNoOp, waits});
      open_waits_ += waits ? 1 : 0;
    }
    attribute_until(step.end);
  }

  StepTimeAttribution take() { return std::move(result_); }

 private:
  struct OpenSpan {
    TimeNs end = 0;
    StringId op = kNoOp;  // kNoOp for a wait call
    bool waits = false;
  };
  struct ActivityEdge {
    TimeNs time = 0;
    bool opens = false;
    std::uint32_t stream = 0;
    std::uint32_t activity = 0;  // index in the stream's activities
  };

  // The time from cursor_ to `until`, closing the spans that end before it. Spans that overlap
  // without nesting (malformed input) still leave each instant counted once: the cursor only
  // moves forward.
  void attribute_until(TimeNs until) {
    while (!open_.empty() && open_.back().end <= until) {
      attribute_open(cursor_, open_.back().end);
      cursor_ = std::max(cursor_, open_.back().end);
      open_waits_ -= open_.back().waits ? 1 : 0;
      open_.pop_back();
    }
    attribute_open(cursor_, until);
    cursor_ = std::max(cursor_, until);
  }

  void attribute_open(TimeNs start, TimeNs end) {
    if (end <= start) return;
    StringId innermost_op = kNoOp;
    for (auto open = open_.rbegin(); open != open_.rend(); ++open) {
      if (open->op != kNoOp) {
        innermost_op = open->op;
        break;
      }
    }
    if (open_waits_ > 0) {
      attribute_wait(start, end, innermost_op);
    } else {
      add_op_or_nothing(innermost_op, static_cast<double>(end - start));
    }
  }

  // A wait's time goes to the GPU activities running in it, shared between those that run at
  // once; where none runs, to the op that waits.
  void attribute_wait(TimeNs start, TimeNs end, StringId waiting_op) {
    const trace::Trace& trace = context_.trace();
    const std::vector<GpuStream>& streams = context_.gpu_streams();
    edges_.clear();
    for (std::uint32_t s = 0; s < streams.size(); ++s) {
      const GpuStream& stream = streams[s];
      if (stream.activities.empty()) continue;
      const trace::Track& track = trace.track(stream.track);
      const trace::SpanColumns& spans = track.spans();
      for_spans_in_window(track, start, end, stream.longest, [&](std::uint32_t index) {
        const auto found = std::lower_bound(
            stream.activities.begin(), stream.activities.end(), index,
            [](const GpuActivity& activity, std::uint32_t i) { return activity.index < i; });
        if (found == stream.activities.end() || found->index != index) return;
        const auto activity = static_cast<std::uint32_t>(found - stream.activities.begin());
        edges_.push_back({std::max(spans.start[index], start), true, s, activity});
        edges_.push_back({std::min(spans.end(index), end), false, s, activity});
      });
    }
    // At equal times openings go first, so that an activity of no length opens before it closes.
    std::sort(edges_.begin(), edges_.end(), [](const ActivityEdge& a, const ActivityEdge& b) {
      return a.time != b.time ? a.time < b.time : a.opens > b.opens;
    });
    running_.clear();
    TimeNs at = start;
    for (const ActivityEdge& edge : edges_) {
      if (edge.time > at) {
        attribute_piece(at, edge.time, waiting_op);
        at = edge.time;
      }
      const std::pair<std::uint32_t, std::uint32_t> key{edge.stream, edge.activity};
      if (edge.opens) {
        running_.push_back(key);
      } else {
        running_.erase(std::find(running_.begin(), running_.end(), key));
      }
    }
    attribute_piece(at, end, waiting_op);
  }

  void attribute_piece(TimeNs start, TimeNs end, StringId waiting_op) {
    if (end <= start) return;
    const auto length = static_cast<double>(end - start);
    if (running_.empty()) {
      add_op_or_nothing(waiting_op, length);
      return;
    }
    const double share = length / static_cast<double>(running_.size());
    const trace::Trace& trace = context_.trace();
    for (const auto& [s, activity] : running_) {
      const GpuStream& stream = context_.gpu_streams()[s];
      const GpuActivity& each = stream.activities[activity];
      const StringId name = trace.track(stream.track).spans().name[each.index];
      result_.by_name_ns[{work_kind(static_cast<GpuWork>(each.kind)), name}] += share;
    }
  }

  void add_op_or_nothing(StringId op, double ns) {
    if (op == kNoOp) {
      result_.not_attributed_ns += ns;
    } else {
      result_.by_name_ns[{WorkKind::kOp, op}] += ns;
    }
  }

  const AnalysisContext& context_;
  StepTimeAttribution result_;
  ClassByName<bool> waits_by_name_;
  std::vector<OpenSpan> open_;
  std::size_t open_waits_ = 0;
  TimeNs cursor_ = 0;
  std::vector<ActivityEdge> edges_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> running_;  // (stream, activity)
};

}  // namespace

StepTimeAttribution attribute_step_time(const AnalysisContext& context) {
  StepTimeAttributor attributor(context);
  for (const Step& step : context.steps().steps)
    attributor.attribute_step(step);
  return attributor.take();
}

}  // namespace tscope::analyzer
