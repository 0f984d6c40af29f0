#pragma once
// The arguments of one span or instant as a trace stores them: a run of indices into the trace's
// distinct arguments, since most values repeat (a call stack, a device, a callback id) and one
// list that differs in one value (a sequence number) shares the others.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tscope/trace/event_details.h"
#include "tscope/trace/position_iterator.h"

namespace tscope::trace {

class ArgList {
 public:
  class Iterator : public PositionIterator<Iterator, const Arg&> {
   public:
    using pointer = const Arg*;

    Iterator() = default;
    Iterator(const std::uint32_t* indices, const Arg* values, std::size_t position)
        : PositionIterator(position), indices_(indices), values_(values) {}
    const Arg& operator*() const { return values_[indices_[position()]]; }
    const Arg* operator->() const { return &**this; }

   private:
    const std::uint32_t* indices_ = nullptr;
    const Arg* values_ = nullptr;
  };

  ArgList() = default;
  ArgList(std::span<const std::uint32_t> indices, const std::vector<Arg>& values)
      : indices_(indices), values_(values.data()) {}

  std::size_t size() const { return indices_.size(); }
  bool empty() const { return indices_.empty(); }
  const Arg& operator[](std::size_t index) const { return values_[indices_[index]]; }
  Iterator begin() const { return {indices_.data(), values_, 0}; }
  Iterator end() const { return {indices_.data(), values_, indices_.size()}; }

 private:
  std::span<const std::uint32_t> indices_;
  const Arg* values_ = nullptr;
};

}  // namespace tscope::trace
