#pragma once
// A column of unsigned values held in a narrow type while every value fits, widened once one does
// not. Most traces never need the upper half of what a column's type allows: correlation and flow
// ids count launches and ops, a memory event's bytes and allocator total rarely reach 4 GiB, a
// trace holds fewer than 65,535 distinct names and span details, and spans nest fewer than 256
// deep. Reads give the values back by index or through a random-access iterator.
//
// In an index column (`kMaxStaysNarrow`) the narrow type's largest value stands for the wide
// type's largest, so kNoIndex ("none") stays narrow and only the value one below it is stored
// wide. Other columns skip that mapping: it costs a compare on every read.

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tscope/trace/position_iterator.h"

namespace tscope::trace {

template <typename Narrow, typename Wide, bool kMaxStaysNarrow>
class BasicWideningColumn {
  static_assert(std::numeric_limits<Narrow>::max() < std::numeric_limits<Wide>::max());

 public:
  using value_type = Wide;

  // A random-access iterator that yields each value by value.
  class Iterator : public PositionIterator<Iterator, Wide> {
   public:
    Iterator() = default;
    Iterator(const BasicWideningColumn* column, std::size_t index)
        : PositionIterator<Iterator, Wide>(index), column_(column) {}
    Wide operator*() const { return (*column_)[this->position()]; }

   private:
    const BasicWideningColumn* column_ = nullptr;
  };

  std::size_t size() const { return narrow_.size() + wide_.size(); }
  bool empty() const { return size() == 0; }
  bool wide() const { return !wide_.empty(); }
  Wide operator[](std::size_t index) const {
    return wide_.empty() ? widened(narrow_[index]) : wide_[index];
  }
  // Throws std::out_of_range past the last value.
  Wide at(std::size_t index) const {
    if (index >= size()) {
      throw std::out_of_range("value " + std::to_string(index) + " of " + std::to_string(size()));
    }
    return (*this)[index];
  }
  Wide front() const { return (*this)[0]; }
  Wide back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

  void push_back(Wide value) {
    if (wide_.empty() && fits_narrow(value)) {
      narrow_.push_back(static_cast<Narrow>(value));
      return;
    }
    if (wide_.empty()) {
      wide_.reserve(narrow_.capacity());
      for (const Narrow each : narrow_)
        wide_.push_back(widened(each));
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
    return narrow_.capacity() * sizeof(Narrow) + wide_.capacity() * sizeof(Wide);
  }

  // Equal when they hold the same values, however each holds them.
  bool operator==(const BasicWideningColumn& other) const {
    if (size() != other.size()) return false;
    for (std::size_t i = 0; i < size(); ++i) {
      if ((*this)[i] != other[i]) return false;
    }
    return true;
  }

 private:
  static constexpr Narrow kNarrowMax = std::numeric_limits<Narrow>::max();
  static constexpr Wide kWideMax = std::numeric_limits<Wide>::max();

  static bool fits_narrow(Wide value) {
    if constexpr (kMaxStaysNarrow) return value < kNarrowMax || value == kWideMax;
    return value <= kNarrowMax;
  }
  static Wide widened(Narrow value) {
    if constexpr (kMaxStaysNarrow) return value == kNarrowMax ? kWideMax : Wide{value};
    return value;
  }

  // One of the two is empty.
  std::vector<Narrow> narrow_;
  std::vector<Wide> wide_;
};

// Ids, byte counts and totals: 32 bits until one needs 64.
using WideningColumn = BasicWideningColumn<std::uint32_t, std::uint64_t, false>;
// Indices into the trace's strings and side tables (kNoIndex for none): 16 bits until one needs 32.
using IndexColumn = BasicWideningColumn<std::uint16_t, std::uint32_t, true>;
// Nesting depths: 8 bits until a span nests 256 deep.
using DepthColumn = BasicWideningColumn<std::uint8_t, std::uint16_t, false>;

}  // namespace tscope::trace
