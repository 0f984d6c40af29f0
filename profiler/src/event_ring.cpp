#include "event_ring.h"

#include <bit>

namespace tscope::profiler {
namespace {

constexpr std::size_t kMinimumCapacity = 4096;

}  // namespace

EventRing::EventRing(std::size_t capacity_bytes)
    : buffer_(
          std::make_unique<std::byte[]>(std::bit_ceil(std::max(capacity_bytes, kMinimumCapacity)))),
      mask_(std::bit_ceil(std::max(capacity_bytes, kMinimumCapacity)) - 1) {}

}  // namespace tscope::profiler
