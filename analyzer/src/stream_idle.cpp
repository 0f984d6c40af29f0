#include "stream_idle.h"

#include <algorithm>

#include "order_statistics.h"

namespace tscope::analyzer {

StreamIdle stream_idle(const StreamActivities& stream, trace::TimeNs kernel_wait_ns,
                       double step_count) {
  StreamIdle idle;
  std::vector<trace::TimeNs> gaps;
  const StreamActivityColumns& activities = stream.activities;
  for (std::size_t i = 1; i < activities.size(); ++i) {
    const StreamActivity previous = activities[i - 1];
    const StreamActivity next = activities[i];
    const trace::TimeNs gap = std::max<trace::TimeNs>(0, next.start - previous.end);
    const auto length = static_cast<double>(gap);
    if (next.launched && next.launch_start > previous.end) {
      idle.host_wait_ns += length;
      ++idle.host_wait_count;
    } else if (next.start - previous.end < kernel_wait_ns) {
      idle.kernel_wait_ns += length;
      ++idle.kernel_wait_count;
    } else {
      idle.other_ns += length;
      ++idle.other_count;
    }
    if (gap > 0) gaps.push_back(gap);
  }
  idle.intervals.count = gaps.size();
  idle.intervals.max_ns =
      gaps.empty() ? 0 : static_cast<double>(*std::max_element(gaps.begin(), gaps.end()));
  idle.intervals.p50_ns = nearest_rank(gaps, 0.50);
  idle.intervals.p95_ns = nearest_rank(gaps, 0.95);
  idle.host_wait_ns /= step_count;
  idle.kernel_wait_ns /= step_count;
  idle.other_ns /= step_count;
  return idle;
}

}  // namespace tscope::analyzer
