#include "tscope/engine/caching_allocator.h"

#include <algorithm>
#include <tuple>

#include "current_op.h"
#include "tscope/engine/errors.h"
#include "tscope/profiler/record.h"
#include "tscope/trace/allocator_segments.h"

namespace tscope::engine {
namespace {

std::size_t round_up(std::size_t bytes, std::size_t multiple) {
  return (bytes + multiple - 1) / multiple * multiple;
}

std::int32_t trace_device(Device device) {
  return device.is_cpu() ? -1 : device.index();
}

}  // namespace

bool CachingAllocator::BlockOrder::operator()(const Block* a, const Block* b) const {
  return std::tie(a->stream, a->bytes, a->address) < std::tie(b->stream, b->bytes, b->address);
}

CachingAllocator::CachingAllocator(std::unique_ptr<SegmentSource> source,
                                   std::function<StreamId()> current_stream)
    : source_(std::move(source)), current_stream_(std::move(current_stream)) {
  if (!source_) throw EngineError("caching allocator: needs a segment source");
}

CachingAllocator::~CachingAllocator() {
  for (const auto& [address, head] : segments_) {
    std::size_t segment_bytes = 0;
    for (Block* block = head; block != nullptr;) {
      Block* next = block->next;
      segment_bytes += block->bytes;
      delete block;
      block = next;
    }
    source_->free_segment(reinterpret_cast<void*>(address), segment_bytes);
  }
}

std::size_t CachingAllocator::rounded_size(std::size_t bytes) {
  return bytes < kMinBlockBytes ? kMinBlockBytes : round_up(bytes, kMinBlockBytes);
}

std::size_t CachingAllocator::segment_size_for(std::size_t rounded_bytes) {
  if (rounded_bytes <= kSmallRequestBytes) return kSmallSegmentBytes;
  if (rounded_bytes < kMinLargeSegmentRequest) return kLargeSegmentBytes;
  return round_up(rounded_bytes, kLargeRounding);
}

Device CachingAllocator::device() const {
  return source_->device();
}

void* CachingAllocator::allocate(std::size_t bytes) {
  return allocate_on_stream(bytes, current_stream_());
}

void* CachingAllocator::allocate_on_stream(std::size_t bytes, StreamId stream) {
  if (bytes == 0) return nullptr;
  std::lock_guard lock(mutex_);
  const std::size_t size = rounded_size(bytes);
  const bool small_pool = size <= kSmallRequestBytes;
  Block* block = take_cached_block(size, stream, small_pool);
  if (block == nullptr) block = allocate_segment(segment_size_for(size), stream, small_pool);
  if (block == nullptr) {
    // Cached segments of other sizes and streams may be what fills the device.
    ++stats_.retries;
    release_free_segments();
    block = allocate_segment(segment_size_for(size), stream, small_pool);
  }
  if (block == nullptr) throw_out_of_memory(bytes);
  split(block, size);
  block->allocated = true;
  block->requested_bytes = bytes;
  block->owner_op = current_op_name();
  live_blocks_.emplace(block->address, block);
  stats_.allocated_bytes += block->bytes;
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  stats_.live_allocations = live_blocks_.size();
  ++stats_.allocation_count;
  record_memory_event(true, *block);
  return reinterpret_cast<void*>(block->address);
}

void CachingAllocator::deallocate(void* address, std::size_t /*bytes*/) {
  if (address == nullptr) return;
  std::lock_guard lock(mutex_);
  const auto found = live_blocks_.find(reinterpret_cast<std::uintptr_t>(address));
  if (found == live_blocks_.end()) {
    throw EngineError("caching allocator on " + device().to_string() +
                      ": free of an address it did not hand out");
  }
  Block* block = found->second;
  live_blocks_.erase(found);
  block->allocated = false;
  block->requested_bytes = 0;
  block->owner_op.clear();
  stats_.allocated_bytes -= block->bytes;
  stats_.live_allocations = live_blocks_.size();
  record_memory_event(false, *block);

  Pool& pool = pool_for(block->small_pool);
  if (Block* previous = block->previous; previous != nullptr && !previous->allocated) {
    pool.erase(previous);
    previous->bytes += block->bytes;
    previous->next = block->next;
    if (block->next != nullptr) block->next->previous = previous;
    delete block;
    block = previous;
  }
  if (Block* next = block->next; next != nullptr && !next->allocated) {
    pool.erase(next);
    block->bytes += next->bytes;
    block->next = next->next;
    if (next->next != nullptr) next->next->previous = block;
    delete next;
  }
  pool.insert(block);
}

CachingAllocator::Block* CachingAllocator::take_cached_block(std::size_t bytes, StreamId stream,
                                                             bool small_pool) {
  Pool& pool = pool_for(small_pool);
  Block key;
  key.stream = stream;
  key.bytes = bytes;
  const auto found = pool.lower_bound(&key);
  if (found == pool.end() || (*found)->stream != stream) return nullptr;
  Block* block = *found;
  pool.erase(found);
  return block;
}

CachingAllocator::Block* CachingAllocator::allocate_segment(std::size_t bytes, StreamId stream,
                                                            bool small_pool) {
  if (capacity_ && (bytes > *capacity_ || stats_.reserved_bytes > *capacity_ - bytes)) {
    return nullptr;
  }
  void* memory = source_->allocate_segment(bytes);
  if (memory == nullptr) return nullptr;
  auto* block = new Block;
  block->address = reinterpret_cast<std::uintptr_t>(memory);
  block->bytes = bytes;
  block->stream = stream;
  block->small_pool = small_pool;
  segments_.emplace(block->address, block);
  stats_.reserved_bytes += bytes;
  record_segment_event(trace::kSegmentAllocInstant, *block);
  stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
  ++stats_.segment_allocations;
  return block;
}

void CachingAllocator::split(Block* block, std::size_t bytes) {
  const std::size_t remaining = block->bytes - bytes;
  // A large block keeps a small remainder rather than feed small requests from the large pool.
  const bool worth_splitting =
      block->small_pool ? remaining >= kMinBlockBytes : remaining > kSmallRequestBytes;
  if (!worth_splitting) return;
  auto* rest = new Block;
  rest->address = block->address + bytes;
  rest->bytes = remaining;
  rest->stream = block->stream;
  rest->small_pool = block->small_pool;
  rest->previous = block;
  rest->next = block->next;
  if (block->next != nullptr) block->next->previous = rest;
  block->next = rest;
  block->bytes = bytes;
  pool_for(rest->small_pool).insert(rest);
}

void CachingAllocator::release_free_segments() {
  for (auto it = segments_.begin(); it != segments_.end();) {
    Block* head = it->second;
    if (head->allocated || head->next != nullptr) {
      ++it;
      continue;
    }
    pool_for(head->small_pool).erase(head);
    source_->free_segment(reinterpret_cast<void*>(head->address), head->bytes);
    stats_.reserved_bytes -= head->bytes;
    record_segment_event(trace::kSegmentFreeInstant, *head);
    delete head;
    it = segments_.erase(it);
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_free_segments();
}

MemorySnapshot CachingAllocator::snapshot() const {
  std::lock_guard lock(mutex_);
  return snapshot_locked();
}

MemorySnapshot CachingAllocator::snapshot_locked() const {
  MemorySnapshot snapshot;
  snapshot.segments.reserve(segments_.size());
  for (const auto& [address, head] : segments_) {
    SegmentSnapshot segment;
    segment.address = address;
    segment.stream = head->stream;
    segment.small_pool = head->small_pool;
    for (const Block* block = head; block != nullptr; block = block->next) {
      segment.bytes += block->bytes;
      segment.blocks.push_back({block->address, block->bytes, block->allocated,
                                block->requested_bytes, block->owner_op});
    }
    snapshot.segments.push_back(std::move(segment));
  }
  return snapshot;
}

void CachingAllocator::throw_out_of_memory(std::size_t bytes) {
  ++stats_.out_of_memory_count;
  const std::size_t limit = capacity_.value_or(stats_.reserved_bytes);
  MemorySnapshot snapshot = snapshot_locked();
  // The layout goes into the trace first, one instant per segment, so that an analysis can tell
  // a fragmented cache (free blocks, none large enough) from a full one.
  std::size_t largest_free_block = 0;
  for (const SegmentSnapshot& segment : snapshot.segments) {
    std::size_t allocated = 0;
    std::size_t largest_free = 0;
    for (const BlockSnapshot& block : segment.blocks) {
      if (block.allocated) {
        allocated += block.bytes;
      } else {
        largest_free = std::max(largest_free, block.bytes);
      }
    }
    largest_free_block = std::max(largest_free_block, largest_free);
    profiler::instant(kSegmentInstantName, trace::Category::kOther,
                      {{"address", segment.address},
                       {"segment_bytes", segment.bytes},
                       {"allocated_bytes", allocated},
                       {"largest_free_bytes", largest_free},
                       {"blocks", segment.blocks.size()},
                       {"device", trace_device(device())}});
  }
  profiler::instant("out of memory", trace::Category::kOther,
                    {{"requested_bytes", bytes},
                     {"limit_bytes", limit},
                     {"allocated_bytes", stats_.allocated_bytes},
                     {"reserved_bytes", stats_.reserved_bytes},
                     {"largest_free_block_bytes", largest_free_block},
                     {"segments", segments_.size()},
                     {"device", trace_device(device())},
                     {"op", outermost_op_name()},
                     {"inner_op", current_op_name()}});
  throw DeviceOutOfMemory(device(), bytes, limit, std::move(snapshot));
}

void CachingAllocator::record_memory_event(bool allocation, const Block& block) const {
  profiler::memory_event(
      {.action = allocation ? trace::MemoryAction::kAlloc : trace::MemoryAction::kFree,
       .address = block.address,
       .bytes = block.bytes,
       .device = trace_device(source_->device()),
       .owner_op = current_op_name(),
       .total_allocated = stats_.allocated_bytes,
       .total_reserved = stats_.reserved_bytes});
}

void CachingAllocator::record_segment_event(std::string_view name, const Block& segment) const {
  profiler::instant(name, trace::Category::kOther,
                    {{"address", segment.address},
                     {"bytes", segment.bytes},
                     {"device", trace_device(source_->device())},
                     {"stream", segment.stream}});
}

CachingAllocatorStats CachingAllocator::caching_stats() const {
  std::lock_guard lock(mutex_);
  CachingAllocatorStats stats = stats_;
  stats.segments = segments_.size();
  stats.inactive_split_bytes = 0;
  for (const Pool* pool : {&small_blocks_, &large_blocks_}) {
    for (const Block* block : *pool) {
      if (block->is_split()) stats.inactive_split_bytes += block->bytes;
    }
  }
  return stats;
}

AllocatorStats CachingAllocator::stats() const {
  const CachingAllocatorStats stats = caching_stats();
  return {.bytes_in_use = stats.allocated_bytes,
          .peak_bytes_in_use = stats.peak_allocated_bytes,
          .allocation_count = stats.allocation_count,
          .live_allocations = stats.live_allocations};
}

void CachingAllocator::set_capacity(std::optional<std::size_t> capacity_bytes) {
  std::lock_guard lock(mutex_);
  capacity_ = capacity_bytes;
}

std::optional<std::size_t> CachingAllocator::capacity() const {
  std::lock_guard lock(mutex_);
  return capacity_;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

}  // namespace tscope::engine
