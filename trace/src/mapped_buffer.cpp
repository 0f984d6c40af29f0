#include "mapped_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <utility>

namespace tscope::trace {
namespace {

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

MappedBytes::~MappedBytes() {
  if (data_ != nullptr) munmap(data_, capacity_);
}

MappedBytes::MappedBytes(MappedBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

MappedBytes& MappedBytes::operator=(MappedBytes&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, capacity_);
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void MappedBytes::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return;
  const std::size_t page = page_size();
  if (bytes > static_cast<std::size_t>(-1) - page) throw std::bad_alloc();
  const std::size_t doubled = capacity_ <= static_cast<std::size_t>(-1) / 2 ? 2 * capacity_ : 0;
  const std::size_t wanted = std::max(bytes, doubled);
  const std::size_t capacity = (wanted + page - 1) / page * page;
  void* const mapped = data_ == nullptr ? mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                        : mremap(data_, capacity_, capacity, MREMAP_MAYMOVE);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(mapped);
  capacity_ = capacity;
  // Fewer faults and TLB misses where the system gives huge pages on request; advice only.
  madvise(data_, capacity_, MADV_HUGEPAGE);
}

}  // namespace tscope::trace
