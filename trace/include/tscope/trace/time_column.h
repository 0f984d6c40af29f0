#pragma once
// A column of times, in order or nearly so (a track's span starts, sorted by TraceBuilder), held
// as 32-bit offsets from its first time while every later one lies within 4.29 s after it, and as
// 64-bit times once one does not. Most tracks of a profile cover a few seconds, so a span start
// takes 4 bytes where a TimeNs takes 8. Reads give the times back, by index or through a
// random-access iterator (for std::lower_bound and the like); the representation never shows.

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tscope/trace/position_iterator.h"
#include "tscope/trace/records.h"

namespace tscope::trace {

class TimeColumn {
 public:
  // A random-access iterator that yields each time by value.
  class Iterator : public PositionIterator<Iterator, TimeNs> {
   public:
    Iterator() = default;
    Iterator(const TimeColumn* column, std::size_t index)
        : PositionIterator(index), column_(column) {}
    TimeNs operator*() const { return (*column_)[position()]; }

   private:
    const TimeColumn* column_ = nullptr;
  };

  std::size_t size() const { return offsets_.size() + wide_.size(); }
  bool empty() const { return size() == 0; }
  bool wide() const { return !wide_.empty(); }
  TimeNs operator[](std::size_t index) const {
    // push_back admits only offsets that land on a time it was given, so the sum stays in range.
    return wide_.empty() ? static_cast<TimeNs>(static_cast<std::uint64_t>(base_) + offsets_[index])
                         : wide_[index];
  }
  // Throws std::out_of_range past the last time.
  TimeNs at(std::size_t index) const {
    if (index >= size()) {
      throw std::out_of_range("time " + std::to_string(index) + " of " + std::to_string(size()));
    }
    return (*this)[index];
  }
  TimeNs front() const { return (*this)[0]; }
  TimeNs back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

  void push_back(TimeNs time) {
    if (offsets_.empty() && wide_.empty()) base_ = time;
    const std::uint64_t offset =
        static_cast<std::uint64_t>(time) - static_cast<std::uint64_t>(base_);
    if (wide_.empty() && time >= base_ && offset <= std::numeric_limits<std::uint32_t>::max()) {
      offsets_.push_back(static_cast<std::uint32_t>(offset));
      return;
    }
    if (wide_.empty()) {
      wide_.reserve(offsets_.capacity());
      for (const std::uint32_t each : offsets_)
        wide_.push_back(static_cast<TimeNs>(static_cast<std::uint64_t>(base_) + each));
      offsets_ = {};
    }
    wide_.push_back(time);
  }
  void reserve(std::size_t size) {
    if (wide_.empty()) {
      offsets_.reserve(size);
    } else {
      wide_.reserve(size);
    }
  }
  void shrink_to_fit() {
    offsets_.shrink_to_fit();
    wide_.shrink_to_fit();
  }
  std::uint64_t capacity_bytes() const {
    return offsets_.capacity() * sizeof(std::uint32_t) + wide_.capacity() * sizeof(TimeNs);
  }

  // Equal when they hold the same times, however each holds them.
  bool operator==(const TimeColumn& other) const {
    if (size() != other.size()) return false;
    for (std::size_t i = 0; i < size(); ++i) {
      if ((*this)[i] != other[i]) return false;
    }
    return true;
  }

 private:
  TimeNs base_ = 0;                     // the first time pushed
  std::vector<std::uint32_t> offsets_;  // time - base_, while narrow
  std::vector<TimeNs> wide_;            // the times themselves, once one did not fit; one of the
                                        // two vectors is empty
};

}  // namespace tscope::trace
