#include "cpu_contention.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <string_view>

#include "event_classes.h"
#include "tscope/trace/host_metadata.h"

namespace tscope::analyzer {
namespace {

// A positive count from the trace's metadata, or 0 when absent or malformed.
double metadata_count(const trace::Trace& trace, std::string_view key) {
  const auto& values = trace.metadata().values;
  const auto found = values.find(std::string(key));
  if (found == values.end()) return 0;
  unsigned count = 0;
  const std::string& text = found->second;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  return error == std::errc() && end == text.data() + text.size() ? count : 0;
}

// A span in which its thread waits rather than computes.
bool is_wait(trace::Category category, std::string_view name) {
  const HostActivity activity = host_activity(category, name);
  return activity == HostActivity::kDataWait || activity == HostActivity::kSync ||
         name.starts_with("wait:");
}

// later - earlier for later >= earlier, in unsigned arithmetic: a hostile trace's times may lie
// more than INT64_MAX apart.
double elapsed(trace::TimeNs earlier, trace::TimeNs later) {
  return static_cast<double>(static_cast<std::uint64_t>(later) -
                             static_cast<std::uint64_t>(earlier));
}

}  // namespace

void CpuContention::Level::build(std::vector<std::pair<trace::TimeNs, double>>& changes) {
  std::sort(changes.begin(), changes.end());
  double level = 0;
  for (const auto& [time, delta] : changes) {
    if (!times.empty() && times.back() == time) {
      level += delta;
      value.back() = level;
      continue;
    }
    const double area =
        times.empty() ? 0 : integral.back() + value.back() * elapsed(times.back(), time);
    level += delta;
    times.push_back(time);
    value.push_back(level);
    integral.push_back(area);
  }
}

double CpuContention::Level::integral_to(trace::TimeNs time) const {
  const auto after = std::upper_bound(times.begin(), times.end(), time);
  if (after == times.begin()) return 0;
  const auto i = static_cast<std::size_t>(after - times.begin()) - 1;
  return integral[i] + value[i] * elapsed(times[i], time);
}

double CpuContention::Level::average(trace::TimeNs begin, trace::TimeNs end) const {
  if (end <= begin) return 0;
  return (integral_to(end) - integral_to(begin)) / elapsed(begin, end);
}

CpuContention::CpuContention(const AnalysisContext& context)
    : trace_(&context.trace()), main_thread_(context.main_thread()) {
  cpus_ = metadata_count(*trace_, trace::kHostCpusKey);
  engine_threads_ = std::max(1.0, metadata_count(*trace_, trace::kEngineCpuThreadsKey));
  std::vector<std::pair<trace::TimeNs, double>> busy;
  std::vector<std::pair<trace::TimeNs, double>> loaders;
  std::vector<std::pair<trace::TimeNs, trace::TimeNs>> loads;
  for (std::uint32_t track = 0; track < trace_->tracks().size(); ++track) {
    if (trace_->track(track).info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = trace_->track(track).spans();
    bool outer_waits = true;  // the thread's current outermost span is a wait
    // The end of the last wait taken off inside it: a wait nested in that one is not taken off
    // twice.
    trace::TimeNs waited_until = std::numeric_limits<trace::TimeNs>::min();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      const bool wait = is_wait(spans.category[i], trace_->string(spans.name[i]));
      const trace::TimeNs start = spans.start[i];
      const trace::TimeNs end = spans.end(i);
      if (end < start) continue;  // a duration past the time range (a hostile trace)
      if (spans.depth[i] == 0) {
        outer_waits = wait;
        waited_until = std::numeric_limits<trace::TimeNs>::min();
        if (wait) continue;
        busy.emplace_back(start, 1);
        busy.emplace_back(end, -1);
        if (track != main_thread_ && spans.category[i] == trace::Category::kDataLoaderLoad) {
          loaders.emplace_back(start, 1);
          loaders.emplace_back(end, -1);
          loads.emplace_back(start, end);
          add_load_time(spans.name[i], elapsed(start, end));
        }
      } else if (wait && !outer_waits && start >= waited_until) {
        busy.emplace_back(start, -1);
        busy.emplace_back(end, 1);
        waited_until = end;
      }
    }
  }
  busy_.build(busy);
  loaders_.build(loaders);
  double loaded_ns = 0;
  for (const auto& [start, end] : loads) {
    // The loader counts itself once in the busy level.
    loaded_ns += elapsed(start, end) * share(1 + std::max(0.0, busy_.average(start, end) - 1));
  }
  if (!loads.empty()) solo_load_ns_ = loaded_ns / static_cast<double>(loads.size());
}

void CpuContention::add_load_time(trace::StringId name, double ns) {
  const auto known = std::find_if(load_names_.begin(), load_names_.end(),
                                  [&](const auto& entry) { return entry.first == name; });
  if (known == load_names_.end()) {
    load_names_.emplace_back(name, ns);
  } else {
    known->second += ns;
  }
}

double CpuContention::own_time_factor(trace::EventRef span, Loaders then) const {
  if (cpus_ <= 0 || (then.share == 1 && then.threads < 0)) return 1;
  const trace::Track& track = trace_->track(span.track);
  if (track.info().kind != trace::TrackKind::kHostThread) return 1;
  const trace::SpanColumns& spans = track.spans();
  const trace::Category category = spans.category[span.index];
  if (is_wait(category, trace_->string(spans.name[span.index]))) return 1;
  const trace::TimeNs begin = spans.start[span.index];
  const trace::TimeNs end = spans.end(span.index);
  if (end <= begin) return 1;
  const bool engine_op = span.track == main_thread_ && category == trace::Category::kCpuOp;
  const double own = engine_op ? engine_threads_ : 1;
  // The busy level counts this thread once while it runs the span.
  const double others = std::max(0.0, busy_.average(begin, end) - 1);
  const bool loading = category == trace::Category::kDataLoaderLoad;
  const double other_loaders = std::max(0.0, loaders_.average(begin, end) - (loading ? 1 : 0));
  const double loaders_then = then.threads >= 0 ? std::max(0.0, then.threads - (loading ? 1 : 0))
                                                : then.share * other_loaders;
  const double others_then = std::max(0.0, others - other_loaders + loaders_then);
  return share(own + others) / share(own + others_then);
}

}  // namespace tscope::analyzer
