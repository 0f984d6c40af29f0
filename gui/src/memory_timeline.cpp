#include "tscope/gui/memory_timeline.h"

#include <algorithm>
#include <unordered_map>

#include "column_times.h"
#include "saturating_bytes.h"
#include "tscope/analyzer/allocation_category.h"
#include "tscope/analyzer/memory.h"
#include "tscope/trace/memory_order.h"

namespace tscope::gui {
namespace {

// A stack is rebuilt from the nearest checkpoint: at most this many deltas per pixel column.
constexpr std::size_t kCheckpointEvery = 256;
constexpr std::size_t kNoEvent = static_cast<std::size_t>(-1);

// What the grouping groups by: an op or scope name, or a category's number.
std::uint32_t key_of(const trace::Trace& trace, MemoryGrouping grouping, trace::StringId owner,
                     trace::StringId scope) {
  switch (grouping) {
    case MemoryGrouping::kOwnerOp:
      return owner;
    case MemoryGrouping::kScope:
      return scope;
    case MemoryGrouping::kCategory:
      return static_cast<std::uint32_t>(
          analyzer::allocation_category(trace.string(owner), trace.string(scope)));
  }
  return 0;
}

struct Block {
  std::uint64_t bytes;
  std::uint32_t key;
};

// Replays allocations and frees in order, calling `change(key, signed bytes)` for each change and
// `done(position)` after each event; a free counts against the key its allocation had (the op
// running at a free is another).
template <typename Change, typename Done>
void replay(const trace::Trace& trace, const trace::MemoryOrder& order, MemoryGrouping grouping,
            Change&& change, Done&& done) {
  std::unordered_map<std::uint32_t, std::unordered_map<std::uint64_t, Block>> live;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const trace::MemoryStep event = order.at(position);
    const trace::MemoryColumns& memory = trace.track(event.track).memory();
    auto& pool = live[event.track];
    const std::uint64_t address = memory.address[event.index];
    const std::int64_t bytes = signed_bytes(memory.bytes[event.index]);
    if (address == 0) {
      // Kineto's 2021 events carry no address: each only moves a net, under its own key.
      const std::uint32_t key =
          key_of(trace, grouping, memory.owner_op(event.index), memory.scope(event.index));
      change(key, memory.action(event.index) == trace::MemoryAction::kAlloc ? bytes : -bytes);
      done(position);
      continue;
    }
    if (const auto found = pool.find(address); found != pool.end()) {
      change(found->second.key, -signed_bytes(found->second.bytes));
      pool.erase(found);
    }
    if (memory.action(event.index) == trace::MemoryAction::kAlloc) {
      const std::uint32_t key =
          key_of(trace, grouping, memory.owner_op(event.index), memory.scope(event.index));
      pool.emplace(address, Block{memory.bytes[event.index], key});
      change(key, bytes);
    }
    done(position);
  }
}

std::string key_name(const trace::Trace& trace, MemoryGrouping grouping, std::uint32_t key) {
  if (grouping == MemoryGrouping::kCategory) {
    return std::string(analyzer::to_string(static_cast<analyzer::AllocationCategory>(key)));
  }
  const std::string_view name = trace.string(key);
  return name.empty() ? std::string("(none)") : std::string(name);
}

}  // namespace

MemoryTimeline::MemoryTimeline(const trace::Trace& trace, MemoryGrouping grouping)
    : grouping_(grouping) {
  const trace::MemoryOrder order(trace);
  if (order.empty()) return;
  // The peak first, then each key's bytes there: the groups shown are the peak's largest.
  std::int64_t total = 0;
  std::size_t peak_position = 0;
  replay(
      trace, order, grouping,
      [&](std::uint32_t, std::int64_t bytes) { total = saturating_add(total, bytes); },
      [&](std::size_t position) {
        if (total > static_cast<std::int64_t>(peak_bytes_)) {
          peak_bytes_ = static_cast<std::uint64_t>(total);
          peak_position = position;
        }
      });
  std::unordered_map<std::uint32_t, std::int64_t> at_peak;
  std::size_t position_now = 0;
  replay(
      trace, order, grouping,
      [&](std::uint32_t key, std::int64_t bytes) {
        if (position_now <= peak_position) at_peak[key] = saturating_add(at_peak[key], bytes);
      },
      [&](std::size_t position) { position_now = position + 1; });
  std::vector<std::pair<std::int64_t, std::uint32_t>> ranked;
  for (const auto& [key, bytes] : at_peak) {
    if (bytes > 0) ranked.emplace_back(bytes, key);
  }
  std::sort(ranked.begin(), ranked.end(), std::greater<>());
  for (std::size_t i = 0; i < std::min(kShownGroups, ranked.size()); ++i) {
    key_to_group_[ranked[i].second] = static_cast<std::uint8_t>(i);
    group_names_.push_back(key_name(trace, grouping, ranked[i].second));
  }
  group_names_.emplace_back("other");

  times_.reserve(order.size());
  delta_begin_.push_back(0);
  totals_.reserve(order.size());
  // Signed: address-less frees of blocks allocated before the trace began can take a net below 0.
  std::vector<std::int64_t> stack(group_names_.size(), 0);
  std::int64_t live = 0;
  replay(
      trace, order, grouping,
      [&](std::uint32_t key, std::int64_t bytes) {
        const auto group = static_cast<std::uint8_t>(group_of(key));
        stack[group] = saturating_add(stack[group], bytes);
        live = saturating_add(live, bytes);
        delta_group_.push_back(group);
        delta_bytes_.push_back(bytes);
      },
      [&](std::size_t position) {
        times_.push_back(order.at(position).time);
        totals_.push_back(static_cast<std::uint64_t>(std::max<std::int64_t>(0, live)));
        delta_begin_.push_back(static_cast<std::uint32_t>(delta_group_.size()));
        if (times_.size() % kCheckpointEvery == 0) checkpoints_.push_back(stack);
      });
  peak_time_ = times_[peak_position];
  for (std::size_t width = 2, level = 0; width <= totals_.size(); width *= 2, ++level) {
    std::vector<std::uint32_t> maxima(totals_.size() / width);
    for (std::size_t i = 0; i < maxima.size(); ++i) {
      std::uint32_t a = level == 0 ? static_cast<std::uint32_t>(2 * i) : levels_[level - 1][2 * i];
      std::uint32_t b =
          level == 0 ? static_cast<std::uint32_t>(2 * i + 1) : levels_[level - 1][2 * i + 1];
      maxima[i] = totals_[b] > totals_[a] ? b : a;
    }
    levels_.push_back(std::move(maxima));
  }
  for (const trace::Track& track : trace.tracks()) {
    const trace::InstantColumns& instants = track.instants();
    for (std::uint32_t i = 0; i < instants.size(); ++i) {
      if (!analyzer::names_out_of_memory(trace.string(instants.name[i]))) continue;
      if (!oom_time_ || instants.time[i] < *oom_time_) oom_time_ = instants.time[i];
    }
  }
}

std::size_t MemoryTimeline::last_event_at(TimeNs time) const {
  const auto after = std::upper_bound(times_.begin(), times_.end(), time);
  return after == times_.begin() ? kNoEvent : static_cast<std::size_t>(after - times_.begin()) - 1;
}

std::uint64_t MemoryTimeline::total_at(TimeNs time) const {
  const std::size_t event = last_event_at(time);
  return event == kNoEvent ? 0 : totals_[event];
}

std::size_t MemoryTimeline::argmax(std::size_t first, std::size_t last) const {
  std::size_t best = first;
  while (first < last) {
    // The largest aligned block that starts at `first` and ends by `last`.
    std::size_t level = 0;
    while (level < levels_.size() && first % (std::size_t{2} << level) == 0 &&
           first + (std::size_t{2} << level) <= last) {
      ++level;
    }
    const std::size_t candidate = level == 0 ? first : levels_[level - 1][first >> level];
    if (totals_[candidate] > totals_[best]) best = candidate;
    first += std::size_t{1} << level;
  }
  return best;
}

std::vector<std::uint64_t> MemoryTimeline::groups_after(std::size_t event) const {
  const std::size_t checkpoint = (event + 1) / kCheckpointEvery;
  std::vector<std::int64_t> stack = checkpoint == 0
                                        ? std::vector<std::int64_t>(group_names_.size(), 0)
                                        : checkpoints_[checkpoint - 1];
  for (std::size_t d = delta_begin_[checkpoint * kCheckpointEvery]; d < delta_begin_[event + 1];
       ++d) {
    stack[delta_group_[d]] = saturating_add(stack[delta_group_[d]], delta_bytes_[d]);
  }
  std::vector<std::uint64_t> shown(stack.size());
  for (std::size_t group = 0; group < stack.size(); ++group) {
    shown[group] = static_cast<std::uint64_t>(std::max<std::int64_t>(0, stack[group]));
  }
  return shown;
}

std::vector<MemoryColumn> MemoryTimeline::sample(TimeRange range, std::size_t columns) const {
  std::vector<MemoryColumn> samples(columns);
  if (empty() || columns == 0 || range.length() <= 0) return samples;
  std::size_t first = static_cast<std::size_t>(
      std::lower_bound(times_.begin(), times_.end(), range.begin) - times_.begin());
  for (std::size_t column = 0; column < columns; ++column) {
    MemoryColumn& sample = samples[column];
    sample.time = column == 0 ? range.begin : column_end(range, column - 1, columns);
    const TimeNs end = column_end(range, column, columns);
    const std::size_t last = static_cast<std::size_t>(
        std::lower_bound(times_.begin() + static_cast<std::ptrdiff_t>(first), times_.end(), end) -
        times_.begin());
    // No event in the column: the state carried in from the last event before it.
    const std::size_t event =
        first < last ? argmax(first, last) : (first == 0 ? kNoEvent : first - 1);
    first = last;
    if (event == kNoEvent) {
      sample.by_group.assign(group_names_.size(), 0);
      continue;
    }
    sample.total = totals_[event];
    sample.by_group = groups_after(event);
  }
  return samples;
}

std::vector<LiveBlock> MemoryTimeline::blocks_at(const trace::Trace& trace, TimeNs time,
                                                 std::size_t group) const {
  // A click is rare: replaying up to it is cheaper than keeping every block's lifetime.
  const trace::MemoryOrder order(trace);
  std::unordered_map<std::uint32_t, std::unordered_map<std::uint64_t, LiveBlock>> live;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const trace::MemoryStep event = order.at(position);
    if (event.time > time) break;
    const trace::MemoryColumns& memory = trace.track(event.track).memory();
    auto& pool = live[event.track];
    const std::uint64_t address = memory.address[event.index];
    if (address == 0) continue;  // no block to list
    pool.erase(address);
    if (memory.action(event.index) != trace::MemoryAction::kAlloc) continue;
    const std::uint32_t key =
        key_of(trace, grouping_, memory.owner_op(event.index), memory.scope(event.index));
    if (group_of(key) == group) {
      pool[address] = {{trace::EventKind::kMemory, event.track, event.index},
                       memory.bytes[event.index]};
    }
  }
  std::vector<LiveBlock> blocks;
  for (const auto& [track, pool] : live) {
    for (const auto& [address, block] : pool)
      blocks.push_back(block);
  }
  std::sort(blocks.begin(), blocks.end(),
            [](const LiveBlock& a, const LiveBlock& b) { return a.bytes > b.bytes; });
  return blocks;
}

std::size_t MemoryTimeline::group_of(std::uint32_t key) const {
  const auto found = key_to_group_.find(key);
  return found == key_to_group_.end() ? group_names_.size() - 1 : found->second;
}

std::optional<trace::EventRef> MemoryTimeline::op_of(const trace::Trace& trace,
                                                     const LiveBlock& block) {
  const trace::MemoryColumns& memory = trace.track(block.event.track).memory();
  const TimeNs time = memory.time[block.event.index];
  const trace::StringId owner = memory.owner_op(block.event.index);
  std::optional<trace::EventRef> any_op;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t depth = track.depth_count(); depth-- > 0;) {
      const auto at_depth = track.spans_at_depth(depth);
      const std::size_t first = track.first_span_ending_after(depth, time);
      if (first >= at_depth.size() || spans.start[at_depth[first]] > time) continue;
      const std::uint32_t span = at_depth[first];
      const trace::EventRef ref{trace::EventKind::kSpan, track_index, span};
      if (spans.name[span] == owner) return ref;
      if (!any_op && spans.category[span] == trace::Category::kCpuOp) any_op = ref;
    }
  }
  return any_op;
}

}  // namespace tscope::gui
