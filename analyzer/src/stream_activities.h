#pragma once
// The GPU activities of each stream that belong to the selected steps (by their launch, see
// AnalysisContext::step_of_gpu_activity), in start order, with the times of their launch calls:
// what the per-stream idle breakdown and the launch-queue length are computed from.

#include <cstdint>
#include <optional>
#include <vector>

#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

struct StreamActivity {
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
  std::uint32_t index = 0;  // span index on the stream's track
  bool launched = false;    // a launch call is known (AnalysisContext::launch_of)
  trace::TimeNs launch_start = 0;
};

// A stream's activities as two columns, span index and launch start (12 bytes an activity, kept
// for the whole report); each is read back as a StreamActivity with its times from the trace.
class StreamActivityColumns {
 public:
  explicit StreamActivityColumns(const trace::SpanColumns& spans) : spans_(&spans) {}

  void reserve(std::size_t count) {
    index_.reserve(count);
    launch_start_.reserve(count);
  }
  void push_back(std::uint32_t index, std::optional<trace::TimeNs> launch_start) {
    index_.push_back(index);
    launch_start_.push_back(launch_start.value_or(kNotLaunched));
  }
  std::size_t size() const { return index_.size(); }
  bool empty() const { return index_.empty(); }
  StreamActivity operator[](std::size_t i) const {
    const std::uint32_t index = index_[i];
    const trace::TimeNs launch_start = launch_start_[i];
    return {spans_->start[index], spans_->end(index), index, launch_start != kNotLaunched,
            launch_start};
  }

 private:
  static constexpr trace::TimeNs kNotLaunched = INT64_MIN;  // no trace time comes near it
  const trace::SpanColumns* spans_;
  std::vector<std::uint32_t> index_;
  std::vector<trace::TimeNs> launch_start_;
};

struct StreamActivities {
  std::uint32_t track = 0;
  StreamActivityColumns activities;
};

// Streams with at least one activity in the steps, in track order. Analyses read them through
// AnalysisContext::stream_activities(), which builds them once.
std::vector<StreamActivities> build_stream_activities(const AnalysisContext& context);

}  // namespace tscope::analyzer
