#include "memory_replay.h"

#include <algorithm>

namespace tscope::analyzer {

std::string site_label(const trace::Trace& trace, const AllocationSite& site) {
  const std::string_view owner = trace.string(site.owner_op);
  const std::string_view scope = trace.string(site.scope);
  if (owner.empty() && scope.empty()) return "(unattributed)";
  if (scope.empty()) return std::string(owner);
  if (owner.empty()) return std::string(scope);
  return std::string(scope) + " / " + std::string(owner);
}

std::vector<MemoryStep> memory_event_order(const trace::Trace& trace) {
  std::vector<MemoryStep> order;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::MemoryColumns& memory = trace.track(track_index).memory();
    for (std::uint32_t i = 0; i < memory.size(); ++i)
      order.push_back({memory.time[i], track_index, i});
  }
  // A stable sort keeps same-time events in recorded order; a trace with one pool is in order
  // already and needs none (the sort's buffer would double the order's memory).
  const auto by_time = [](const MemoryStep& a, const MemoryStep& b) { return a.time < b.time; };
  if (!std::is_sorted(order.begin(), order.end(), by_time))
    std::stable_sort(order.begin(), order.end(), by_time);
  return order;
}

MemoryReplay::MemoryReplay(const trace::Trace& trace, const std::vector<MemoryStep>& order)
    : trace_(&trace), order_(&order), pools_(trace.tracks().size()) {}

void MemoryReplay::advance_to(std::size_t position) {
  position = std::min(position, order_->size());
  for (; position_ < position; ++position_) {
    const MemoryStep& step = (*order_)[position_];
    const trace::MemoryColumns& memory = trace_->track(step.track).memory();
    PoolState& state = pools_[step.track];
    if (state.live == nullptr) {
      state.live = &live_[step.track];
      state.totals = &totals_[step.track];
    }
    Pool& pool = *state.live;
    const std::uint64_t address = memory.address[step.index];
    *state.totals = {memory.total_allocated[step.index], memory.total_reserved[step.index]};
    const bool is_alloc = memory.action[step.index] == trace::MemoryAction::kAlloc;
    if (address == 0) {
      const auto bytes = static_cast<std::int64_t>(memory.bytes[step.index]);
      anonymous_net_ += is_alloc ? bytes : -bytes;
    } else if (is_alloc) {
      LiveAllocation allocation;
      allocation.bytes = memory.bytes[step.index];
      allocation.site = {memory.owner_op[step.index], memory.scope[step.index]};
      allocation.event = {trace::EventKind::kMemory, step.track, step.index};
      allocation.time = step.time;
      const auto [slot, inserted] = pool.try_emplace(address, allocation);
      if (!inserted) {
        // An address reused without a recorded free: the old block is gone.
        live_bytes_ -= slot->second.bytes;
        slot->second = allocation;
      }
      live_bytes_ += allocation.bytes;
    } else if (const auto found = pool.find(address); found != pool.end()) {
      live_bytes_ -= found->second.bytes;
      pool.erase(found);
    }
  }
}

void MemoryReplay::advance_until(trace::TimeNs time, bool inclusive) {
  const auto end =
      inclusive ? std::upper_bound(order_->begin() + static_cast<std::ptrdiff_t>(position_),
                                   order_->end(), time,
                                   [](trace::TimeNs t, const MemoryStep& s) { return t < s.time; })
                : std::lower_bound(order_->begin() + static_cast<std::ptrdiff_t>(position_),
                                   order_->end(), time,
                                   [](const MemoryStep& s, trace::TimeNs t) { return s.time < t; });
  advance_to(static_cast<std::size_t>(end - order_->begin()));
}

std::uint64_t MemoryReplay::anonymous_bytes() const {
  return anonymous_net_ > 0 ? static_cast<std::uint64_t>(anonymous_net_) : 0;
}

std::uint64_t MemoryReplay::live_bytes() const {
  const std::int64_t total = static_cast<std::int64_t>(live_bytes_) + anonymous_net_;
  return total > 0 ? static_cast<std::uint64_t>(total) : 0;
}

std::uint64_t MemoryReplay::reported_allocated() const {
  std::uint64_t total = 0;
  for (const auto& [track, totals] : totals_)
    total += totals.first;
  return total;
}

std::uint64_t MemoryReplay::reported_reserved() const {
  std::uint64_t total = 0;
  for (const auto& [track, totals] : totals_)
    total += totals.second;
  return total;
}

}  // namespace tscope::analyzer
