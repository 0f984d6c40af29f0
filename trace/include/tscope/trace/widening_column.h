#pragma once
// A column of 64-bit values held in 32 bits while every value in it fits, widened to 64 when one
// does not: correlation and flow ids count launches and ops, and a memory event's bytes and
// allocator total rarely reach 4 GiB, so most traces never need the upper half.

#include <cstdint>
#include <limits>
#include <vector>

namespace tscope::trace {

class WideningColumn {
 public:
  std::size_t size() const { return narrow_.size() + wide_.size(); }
  bool empty() const { return size() == 0; }
  bool wide() const { return !wide_.empty(); }
  std::uint64_t operator[](std::size_t index) const {
    return wide_.empty() ? narrow_[index] : wide_[index];
  }

  void push_back(std::uint64_t value) {
    if (wide_.empty() && value <= std::numeric_limits<std::uint32_t>::max()) {
      narrow_.push_back(static_cast<std::uint32_t>(value));
      return;
    }
    if (wide_.empty()) {
      wide_.assign(narrow_.begin(), narrow_.end());
      narrow_ = {};
    }
    wide_.push_back(value);
  }
  // Grows with zeros or cuts to `size` values.
  void resize(std::size_t size) {
    if (wide_.empty()) {
      narrow_.resize(size, 0);
    } else {
      wide_.resize(size, 0);
    }
  }
  void reserve(std::size_t size) {
    if (wide_.empty()) {
      narrow_.reserve(size);
    } else {
      wide_.reserve(size);
    }
  }
  void shrink_to_fit() {
    narrow_.shrink_to_fit();
    wide_.shrink_to_fit();
  }
  std::uint64_t capacity_bytes() const {
    return narrow_.capacity() * sizeof(std::uint32_t) + wide_.capacity() * sizeof(std::uint64_t);
  }

  bool operator==(const WideningColumn&) const = default;

 private:
  // One of the two is empty.
  std::vector<std::uint32_t> narrow_;
  std::vector<std::uint64_t> wide_;
};

}  // namespace tscope::trace
