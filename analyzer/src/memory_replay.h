#pragma once
// Replays a trace's allocations and frees in time order to know what is alive at any moment, by
// allocation site (owner op and scope), across all memory pools. Events without an address (the
// 2021 Kineto schema) only move a net byte count: what was allocated since the trace began.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tscope/trace/memory_order.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

// Where an allocation was made: the op that asked for it and the user range around it.
struct AllocationSite {
  trace::StringId owner_op = trace::kEmptyString;
  trace::StringId scope = trace::kEmptyString;
  bool operator==(const AllocationSite&) const = default;
};

// "scope / owner op", either alone when the other is missing, "(unattributed)" when both are.
std::string site_label(const trace::Trace& trace, const AllocationSite& site);

struct LiveAllocation {
  std::uint64_t bytes = 0;
  AllocationSite site;
  trace::EventRef event;
  trace::TimeNs time = 0;
};

class MemoryReplay {
 public:
  // `order` is trace::MemoryOrder(trace) and must outlive the replay.
  MemoryReplay(const trace::Trace& trace, const trace::MemoryOrder& order);

  bool empty() const { return order_->empty(); }
  std::size_t event_count() const { return order_->size(); }
  trace::TimeNs time_of(std::size_t position) const { return order_->at(position).time; }
  // The memory event at `position` of the merged order.
  trace::MemoryStep event_at(std::size_t position) const { return order_->at(position); }
  // Applies events up to (not including) `position` of the merged order; only moves forward.
  void advance_to(std::size_t position);
  // Applies every event with time < `time` (or <= when `inclusive`).
  void advance_until(trace::TimeNs time, bool inclusive = false);
  std::size_t position() const { return position_; }

  // Bytes alive: tracked allocations plus the net of address-less events (never below zero).
  std::uint64_t live_bytes() const;
  // The part of live_bytes() that address-less events account for, with no site.
  std::uint64_t anonymous_bytes() const;
  // Per pool track: address -> allocation.
  const std::unordered_map<std::uint32_t, std::unordered_map<std::uint64_t, LiveAllocation>>& live()
      const {
    return live_;
  }
  // Allocator totals reported by the most recent applied event of each pool.
  std::uint64_t reported_allocated() const;
  std::uint64_t reported_reserved() const;

 private:
  using Pool = std::unordered_map<std::uint64_t, LiveAllocation>;
  struct PoolState {
    Pool* live = nullptr;  // the pool's entry of live_, made on its first event
    std::pair<std::uint64_t, std::uint64_t>* totals = nullptr;  // its entry of totals_
  };

  const trace::Trace* trace_;
  const trace::MemoryOrder* order_;
  // Per track: that pool's entries of live_ and totals_, found once instead of per event
  // (entries of an unordered_map stay where they are when it grows).
  std::vector<PoolState> pools_;
  std::size_t position_ = 0;
  std::uint64_t live_bytes_ = 0;
  std::int64_t anonymous_net_ = 0;
  std::unordered_map<std::uint32_t, std::unordered_map<std::uint64_t, LiveAllocation>> live_;
  std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> totals_;
};

}  // namespace tscope::analyzer
