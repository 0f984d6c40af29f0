#pragma once
// A finished trace's flows as columns (both ends, id, kind): 21 bytes a flow where a Flow struct
// takes 32, since a trace has a flow for every kernel launch. Read as Flow values, in the order
// TraceBuilder sorted them: by (from, to, kind).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tscope/trace/event_kinds.h"
#include "tscope/trace/event_ref.h"
#include "tscope/trace/position_iterator.h"
#include "tscope/trace/records.h"
#include "tscope/trace/widening_column.h"

namespace tscope::trace {

class FlowTable {
 public:
  // A random-access iterator that yields each flow by value.
  class Iterator : public PositionIterator<Iterator, Flow> {
   public:
    // `iterator->field` reads a field of the flow the iterator yields.
    struct pointer {
      Flow flow;
      const Flow* operator->() const { return &flow; }
    };

    Iterator() = default;
    Iterator(const FlowTable* table, std::size_t index) : PositionIterator(index), table_(table) {}
    Flow operator*() const { return (*table_)[position()]; }
    pointer operator->() const { return {**this}; }

   private:
    const FlowTable* table_ = nullptr;
  };

  std::size_t size() const { return kind_.size(); }
  bool empty() const { return kind_.empty(); }
  Flow operator[](std::size_t index) const {
    return {kind_[index], id_[index], from_[index], to_[index]};
  }
  // Throws std::out_of_range past the last flow.
  Flow at(std::size_t index) const;
  Flow front() const { return (*this)[0]; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

  void push_back(const Flow& flow);
  void reserve(std::size_t size);
  void shrink_to_fit();
  std::uint64_t capacity_bytes() const;

  bool operator==(const FlowTable&) const = default;

 private:
  std::vector<EventRef> from_;
  std::vector<EventRef> to_;
  WideningColumn id_;
  std::vector<FlowKind> kind_;
};

}  // namespace tscope::trace
