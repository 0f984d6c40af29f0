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

MemoryReplay::MemoryReplay(const trace::Trace& trace, const trace::MemoryOrder& order)
    : trace_(&trace), order_(&order), pools_(trace.tracks().size()) {}

void MemoryReplay::advance_to(std::size_t position) {
  position = std::min(position, order_->size());
  for (; position_ < position; ++position_) {
    const trace::MemoryStep step = order_->at(position_);
    const trace::MemoryColumns& memory = trace_->track(step.track).memory();
    PoolState& state = pools_[step.track];
    if (state.live == nullptr) {
      state.live = &live_[step.track];
      state.totals = &totals_[step.track];
    }
    Pool& pool = *state.live;
    const std::uint64_t address = memory.address[step.index];
    *state.totals = {memory.total_allocated[step.index], memory.total_reserved(step.index)};
    const bool is_alloc = memory.action(step.index) == trace::MemoryAction::kAlloc;
    if (address == 0) {
      const auto bytes = static_cast<std::int64_t>(memory.bytes[step.index]);
      anonymous_net_ += is_alloc ? bytes : -bytes;
    } else if (is_alloc) {
      LiveAllocation allocation;
      allocation.bytes = memory.bytes[step.index];
      allocation.site = {memory.owner_op(step.index), memory.scope(step.index)};
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
  // The first position from position_ on whose event lies past `time` (at or past it when not
  // inclusive), by binary search over the order.
  std::size_t low = position_;
  std::size_t high = order_->size();
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    const trace::TimeNs at = order_->at(middle).time;
    if (inclusive ? at <= time : at < time) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  advance_to(low);
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
