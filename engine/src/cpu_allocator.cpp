#include "tscope/engine/cpu_allocator.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>

#include "current_op.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/out_of_memory.h"
#include "tscope/profiler/record.h"

namespace tscope::engine {
namespace {

// Reserved is what the process holds for tensors: the blocks in use and the cached ones.
void record_memory_event(trace::MemoryAction action, void* address, std::size_t bytes,
                         std::size_t bytes_in_use, std::size_t cached_bytes) {
  profiler::memory_event({.action = action,
                          .address = reinterpret_cast<std::uintptr_t>(address),
                          .bytes = bytes,
                          .owner_op = current_op_name(),
                          .total_allocated = bytes_in_use,
                          .total_reserved = bytes_in_use + cached_bytes});
}

}  // namespace

std::size_t parse_byte_size(std::string_view text, std::string_view what) {
  auto malformed = [&]() {
    return EngineError(std::string(what) + ": malformed byte size \"" + std::string(text) +
                       "\" (expected a number with an optional K, M, G or T suffix, e.g. 512M)");
  };
  std::size_t position = 0;
  std::size_t value = 0;
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) {
    const auto digit = static_cast<std::size_t>(text[position] - '0');
    if (value > (kMax - digit) / 10) throw malformed();
    value = value * 10 + digit;
    ++position;
  }
  if (position == 0) throw malformed();
  std::size_t multiplier = 1;
  if (position < text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[position]))) {
      case 'K':
        multiplier = std::size_t{1} << 10;
        break;
      case 'M':
        multiplier = std::size_t{1} << 20;
        break;
      case 'G':
        multiplier = std::size_t{1} << 30;
        break;
      case 'T':
        multiplier = std::size_t{1} << 40;
        break;
      case 'B':
        break;
      default:
        throw malformed();
    }
    ++position;
    if (multiplier != 1 && position < text.size() &&
        std::toupper(static_cast<unsigned char>(text[position])) == 'B') {
      ++position;
    }
  }
  if (position != text.size() || value > kMax / multiplier) throw malformed();
  return value * multiplier;
}

std::optional<std::size_t> capacity_from_environment() {
  const char* cap = std::getenv(std::string(kCpuMemoryCapVariable).c_str());
  if (cap == nullptr) return std::nullopt;
  return parse_byte_size(cap, kCpuMemoryCapVariable);
}

CpuAllocator::~CpuAllocator() {
  for (const auto& [address, block] : live_blocks_)
    std::free(address);
  release_cache_locked();
}

std::size_t CpuAllocator::rounded_size(std::size_t bytes) {
  // aligned_alloc wants a multiple of the alignment.
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

void CpuAllocator::release_cache_locked() {
  for (auto& [size, blocks] : cached_blocks_) {
    for (void* block : blocks)
      std::free(block);
    system_calls_.frees += blocks.size();
  }
  cached_blocks_.clear();
  cached_bytes_ = 0;
}

void CpuAllocator::throw_out_of_memory_locked(std::size_t bytes) {
  std::vector<LiveAllocation> live;
  live.reserve(live_blocks_.size());
  for (const auto& [address, block] : live_blocks_) {
    live.push_back({address, block.bytes, std::string(block.op_name)});
  }
  std::ranges::sort(
      live, [](const LiveAllocation& a, const LiveAllocation& b) { return a.bytes > b.bytes; });
  profiler::instant("out of memory", trace::Category::kOther,
                    {{"requested_bytes", bytes},
                     {"bytes_in_use", stats_.bytes_in_use},
                     {"limit_bytes", *capacity_},
                     {"op", outermost_op_name()},
                     {"inner_op", current_op_name()}});
  throw OutOfMemory(bytes, *capacity_, stats_.bytes_in_use, std::move(live));
}

void* CpuAllocator::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  std::lock_guard lock(mutex_);
  if (capacity_ && (bytes > *capacity_ || stats_.bytes_in_use > *capacity_ - bytes)) {
    release_cache_locked();
    throw_out_of_memory_locked(bytes);
  }
  const std::size_t rounded = rounded_size(bytes);
  void* address = nullptr;
  if (auto cached = cached_blocks_.find(rounded);
      cached != cached_blocks_.end() && !cached->second.empty()) {
    address = cached->second.back();
    cached->second.pop_back();
    cached_bytes_ -= rounded;
  } else {
    // The cap bounds what the process holds: cached blocks go back before it is passed.
    if (capacity_ && stats_.bytes_in_use + cached_bytes_ + rounded > *capacity_) {
      release_cache_locked();
    }
    address = std::aligned_alloc(kAlignment, rounded);
    ++system_calls_.allocations;
    if (address == nullptr) {
      release_cache_locked();
      address = std::aligned_alloc(kAlignment, rounded);
      ++system_calls_.allocations;
    }
    if (address == nullptr) throw std::bad_alloc();
  }
  live_blocks_.emplace(address, Block{bytes, current_op_name()});
  stats_.bytes_in_use += bytes;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  ++stats_.allocation_count;
  stats_.live_allocations = live_blocks_.size();
  record_memory_event(trace::MemoryAction::kAlloc, address, bytes, stats_.bytes_in_use,
                      cached_bytes_);
  return address;
}

void CpuAllocator::deallocate(void* address, std::size_t bytes) {
  if (address == nullptr) return;
  std::lock_guard lock(mutex_);
  live_blocks_.erase(address);
  stats_.bytes_in_use -= bytes;
  stats_.live_allocations = live_blocks_.size();
  const std::size_t rounded = rounded_size(bytes);
  if (cached_bytes_ + rounded <= cache_limit_) {
    cached_blocks_[rounded].push_back(address);
    cached_bytes_ += rounded;
  } else {
    std::free(address);
    ++system_calls_.frees;
  }
  record_memory_event(trace::MemoryAction::kFree, address, bytes, stats_.bytes_in_use,
                      cached_bytes_);
}

std::size_t CpuAllocator::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

SystemCalls CpuAllocator::system_calls() const {
  std::lock_guard lock(mutex_);
  return system_calls_;
}

void CpuAllocator::set_cache_limit(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  cache_limit_ = bytes;
  if (cached_bytes_ > cache_limit_) release_cache_locked();
}

void CpuAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_cache_locked();
}

AllocatorStats CpuAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CpuAllocator::set_capacity(std::optional<std::size_t> capacity_bytes) {
  std::lock_guard lock(mutex_);
  capacity_ = capacity_bytes;
}

std::optional<std::size_t> CpuAllocator::capacity() const {
  std::lock_guard lock(mutex_);
  return capacity_;
}

CpuAllocator& cpu_allocator() {
  // Never destroyed: tensors in other static objects may release storage after main returns.
  static CpuAllocator* const allocator = [] {
    auto* created = new CpuAllocator();
    created->set_capacity(capacity_from_environment());
    return created;
  }();
  return *allocator;
}

}  // namespace tscope::engine
