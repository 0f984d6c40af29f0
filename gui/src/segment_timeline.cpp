#include "tscope/gui/segment_timeline.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "column_times.h"
#include "tscope/trace/allocator_segments.h"

namespace tscope::gui {
namespace {

// At one instant a segment is taken before blocks are cut from it, and given back after its last
// block is freed.
enum class ChangeOrder : std::uint8_t { kSegmentTaken, kBlock, kSegmentGivenBack };

struct Change {
  TimeNs time;
  ChangeOrder order;
  std::uint32_t track;
  std::uint32_t index;
};

struct SegmentArgs {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::int32_t device = -1;
};

std::optional<SegmentArgs> segment_args(const trace::Trace& trace, trace::ArgRange range) {
  SegmentArgs args;
  bool has_address = false;
  for (const trace::Arg& arg : trace.args(range)) {
    const auto* value = std::get_if<std::int64_t>(&arg.value);
    if (value == nullptr) continue;
    const std::string_view key = trace.string(arg.key);
    if (key == "address") {
      args.address = static_cast<std::uint64_t>(*value);
      has_address = true;
    } else if (key == "bytes") {
      args.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(*value, 0));
    } else if (key == "device") {
      args.device = static_cast<std::int32_t>(*value);
    }
  }
  if (!has_address || args.bytes == 0) return std::nullopt;
  return args;
}

// Every segment instant and memory event, in time order.
std::vector<Change> changes_of(const trace::Trace& trace) {
  const auto taken = trace.strings().find(trace::kSegmentAllocInstant);
  const auto given_back = trace.strings().find(trace::kSegmentFreeInstant);
  std::vector<Change> changes;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const trace::InstantColumns& instants = trace.track(track).instants();
    if (taken || given_back) {
      for (std::uint32_t i = 0; i < instants.size(); ++i) {
        if (instants.name[i] == taken)
          changes.push_back({instants.time[i], ChangeOrder::kSegmentTaken, track, i});
        if (instants.name[i] == given_back)
          changes.push_back({instants.time[i], ChangeOrder::kSegmentGivenBack, track, i});
      }
    }
    const trace::MemoryColumns& memory = trace.track(track).memory();
    for (std::uint32_t i = 0; i < memory.size(); ++i)
      changes.push_back({memory.time[i], ChangeOrder::kBlock, track, i});
  }
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  });
  return changes;
}

// The live segment holding `address` on `device` among `live` (by address).
std::optional<std::uint32_t> segment_holding(const std::map<std::uint64_t, std::uint32_t>& live,
                                             const std::vector<AllocatorSegment>& segments,
                                             std::uint64_t address, std::int32_t device) {
  auto after = live.upper_bound(address);
  if (after == live.begin()) return std::nullopt;
  const std::uint32_t index = std::prev(after)->second;
  const AllocatorSegment& segment = segments[index];
  if (address >= segment.address + segment.bytes || segment.device != device) return std::nullopt;
  return index;
}

// Merges `run` into the last of `runs` when less than a pixel lies between them or, with
// `keep_tall_apart`, only when one of the two is under a pixel tall (so that bands of a pixel or
// more stay apart even when they touch).
void append_run(std::vector<PixelRun>& runs, PixelRun run, bool keep_tall_apart = false) {
  if (run.top <= run.bottom) return;
  const auto thin = [](const PixelRun& r) { return r.top - r.bottom < 1; };
  if (!runs.empty() && run.bottom - runs.back().top < 1 &&
      (!keep_tall_apart || thin(run) || thin(runs.back()))) {
    runs.back().top = std::max(runs.back().top, run.top);
    return;
  }
  runs.push_back(run);
}

}  // namespace

std::uint64_t AllocatorSegment::allocated_at(TimeNs time) const {
  const auto after = std::upper_bound(change_times.begin(), change_times.end(), time);
  return after == change_times.begin() ? 0 : allocated[after - change_times.begin() - 1];
}

SegmentTimeline::SegmentTimeline(const trace::Trace& trace) {
  std::map<std::uint64_t, std::uint32_t> live;  // segment address -> index
  // Per segment, its blocks alive now: address -> bytes.
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> blocks;
  std::vector<std::uint64_t> allocated;
  std::unordered_map<std::int32_t, std::pair<std::uint64_t, std::uint64_t>> device_totals;
  std::uint64_t reserved_now = 0;
  for (const Change& change : changes_of(trace)) {
    if (change.order != ChangeOrder::kBlock) {
      const auto args =
          segment_args(trace, trace.track(change.track).instants().args[change.index]);
      if (!args) continue;
      if (change.order == ChangeOrder::kSegmentTaken) {
        // A segment at an address still live lost its free to a dropped event: it ends here.
        if (const auto stale = live.find(args->address); stale != live.end()) {
          segments_[stale->second].given_back = change.time;
          reserved_now -= segments_[stale->second].bytes;
        }
        live[args->address] = static_cast<std::uint32_t>(segments_.size());
        AllocatorSegment& segment = segments_.emplace_back();
        segment.address = args->address;
        segment.bytes = args->bytes;
        segment.device = args->device;
        segment.taken = change.time;
        blocks.emplace_back();
        allocated.push_back(0);
        reserved_now += args->bytes;
        peak_reserved_ = std::max(peak_reserved_, reserved_now);
      } else if (const auto found = live.find(args->address); found != live.end()) {
        segments_[found->second].given_back = change.time;
        reserved_now -= segments_[found->second].bytes;
        live.erase(found);
      }
      continue;
    }
    const trace::MemoryColumns& memory = trace.track(change.track).memory();
    const std::uint64_t address = memory.address[change.index];
    if (const auto index = segment_holding(live, segments_, address, memory.device(change.index))) {
      AllocatorSegment& segment = segments_[*index];
      auto& inside = blocks[*index];
      if (const auto block = inside.find(address); block != inside.end()) {
        allocated[*index] -= block->second;
        inside.erase(block);
      }
      if (memory.action(change.index) == trace::MemoryAction::kAlloc) {
        inside.emplace(address, memory.bytes[change.index]);
        allocated[*index] += memory.bytes[change.index];
      }
      if (!segment.change_times.empty() && segment.change_times.back() == change.time) {
        segment.allocated.back() = allocated[*index];
      } else {
        segment.change_times.push_back(change.time);
        segment.allocated.push_back(allocated[*index]);
      }
    }
    if (memory.total_reserved(change.index) == 0) continue;
    // The allocator's own totals (Kineto's Total Allocated and Total Reserved), summed over
    // devices.
    device_totals[memory.device(change.index)] = {memory.total_allocated[change.index],
                                                  memory.total_reserved(change.index)};
    std::uint64_t total_allocated = 0;
    std::uint64_t total_reserved = 0;
    for (const auto& [device, totals] : device_totals) {
      total_allocated += totals.first;
      total_reserved += totals.second;
    }
    total_times_.push_back(change.time);
    total_allocated_.push_back(total_allocated);
    total_reserved_.push_back(total_reserved);
  }
  // With segment events the segments are the reservation; the totals only stand in for them.
  if (!segments_.empty()) {
    total_times_.clear();
    total_allocated_.clear();
    total_reserved_.clear();
  } else {
    for (const std::uint64_t reserved : total_reserved_)
      peak_reserved_ = std::max(peak_reserved_, reserved);
  }
  by_given_back_.resize(segments_.size());
  for (std::uint32_t index = 0; index < segments_.size(); ++index)
    by_given_back_[index] = index;
  std::stable_sort(by_given_back_.begin(), by_given_back_.end(),
                   [&](std::uint32_t a, std::uint32_t b) {
                     return segments_[a].given_back < segments_[b].given_back;
                   });
}

std::vector<SegmentColumn> SegmentTimeline::sample(TimeRange range, std::size_t columns) const {
  std::vector<SegmentColumn> sampled(columns);
  // The live segments swept forward over the columns, by index (the order they were taken): a
  // frame costs one pass over the segments plus their changes in view, however many were
  // given back before.
  std::vector<std::uint32_t> live;
  std::size_t next_taken = 0;
  std::size_t next_given_back = 0;
  for (std::size_t column = 0; column < columns; ++column) {
    SegmentColumn& out = sampled[column];
    out.time = std::max(range.begin, column_end(range, column, columns) - 1);
    if (has_segments()) {
      if (column == 0) {
        for (std::uint32_t index = 0; index < segments_.size(); ++index) {
          if (segments_[index].taken > out.time) break;
          if (segments_[index].alive_at(out.time)) live.push_back(index);
          next_taken = index + 1;
        }
        next_given_back = static_cast<std::size_t>(
            std::upper_bound(by_given_back_.begin(), by_given_back_.end(), out.time,
                             [&](TimeNs time, std::uint32_t index) {
                               return time < segments_[index].given_back;
                             }) -
            by_given_back_.begin());
      }
      for (; next_taken < segments_.size() && segments_[next_taken].taken <= out.time; ++next_taken)
        live.push_back(static_cast<std::uint32_t>(next_taken));
      for (; next_given_back < by_given_back_.size() &&
             segments_[by_given_back_[next_given_back]].given_back <= out.time;
           ++next_given_back) {
        const auto found = std::find(live.begin(), live.end(), by_given_back_[next_given_back]);
        if (found != live.end()) live.erase(found);
      }
      for (const std::uint32_t index : live) {
        const AllocatorSegment& segment = segments_[index];
        const std::uint64_t in_use = segment.allocated_at(out.time);
        out.bands.push_back({index, segment.bytes, in_use});
        out.reserved += segment.bytes;
        out.allocated += in_use;
      }
      continue;
    }
    const auto after = std::upper_bound(total_times_.begin(), total_times_.end(), out.time);
    if (after == total_times_.begin()) continue;
    const auto last = static_cast<std::size_t>(after - total_times_.begin() - 1);
    out.reserved = total_reserved_[last];
    out.allocated = total_allocated_[last];
  }
  return sampled;
}

std::vector<LiveBlock> SegmentTimeline::blocks_at(const trace::Trace& trace, std::uint32_t segment,
                                                  TimeNs time) const {
  const AllocatorSegment& holder = segments_.at(segment);
  if (!holder.alive_at(time)) return {};
  std::vector<Change> inside;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const trace::MemoryColumns& memory = trace.track(track).memory();
    for (std::uint32_t i = 0; i < memory.size(); ++i) {
      if (memory.time[i] < holder.taken || memory.time[i] > time ||
          memory.address[i] < holder.address ||
          memory.address[i] >= holder.address + holder.bytes || memory.device(i) != holder.device)
        continue;
      inside.push_back({memory.time[i], ChangeOrder::kBlock, track, i});
    }
  }
  std::stable_sort(inside.begin(), inside.end(),
                   [](const Change& a, const Change& b) { return a.time < b.time; });
  std::unordered_map<std::uint64_t, LiveBlock> live;
  for (const Change& change : inside) {
    const trace::MemoryColumns& memory = trace.track(change.track).memory();
    const std::uint64_t address = memory.address[change.index];
    live.erase(address);
    if (memory.action(change.index) == trace::MemoryAction::kAlloc) {
      live.emplace(address, LiveBlock{{trace::EventKind::kMemory, change.track, change.index},
                                      memory.bytes[change.index]});
    }
  }
  std::vector<LiveBlock> blocks;
  blocks.reserve(live.size());
  for (const auto& [address, block] : live)
    blocks.push_back(block);
  std::sort(blocks.begin(), blocks.end(), [](const LiveBlock& a, const LiveBlock& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.event < b.event;
  });
  return blocks;
}

ColumnRuns column_runs(const SegmentColumn& column, double pixels_per_byte) {
  ColumnRuns runs;
  if (column.bands.empty()) {
    append_run(runs.reserved,
               {0, static_cast<float>(static_cast<double>(column.reserved) * pixels_per_byte)});
    append_run(runs.allocated,
               {0, static_cast<float>(static_cast<double>(column.allocated) * pixels_per_byte)});
    return runs;
  }
  double bottom = 0;
  for (const SegmentBand& band : column.bands) {
    const double top = bottom + static_cast<double>(band.bytes) * pixels_per_byte;
    append_run(runs.reserved, {static_cast<float>(bottom), static_cast<float>(top)}, true);
    // Blocks fill a band from its bottom: the allocated part, then what is reserved and free.
    append_run(runs.allocated, {static_cast<float>(bottom),
                                static_cast<float>(bottom + static_cast<double>(band.allocated) *
                                                                pixels_per_byte)});
    bottom = top;
  }
  return runs;
}

}  // namespace tscope::gui
