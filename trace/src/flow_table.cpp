#include "tscope/trace/flow_table.h"

#include <stdexcept>
#include <string>

namespace tscope::trace {

Flow FlowTable::at(std::size_t index) const {
  if (index >= size()) {
    throw std::out_of_range("flow " + std::to_string(index) + " of " + std::to_string(size()));
  }
  return (*this)[index];
}

void FlowTable::push_back(const Flow& flow) {
  from_.push_back(flow.from);
  to_.push_back(flow.to);
  id_.push_back(flow.id);
  kind_.push_back(flow.kind);
}

void FlowTable::reserve(std::size_t size) {
  from_.reserve(size);
  to_.reserve(size);
  id_.reserve(size);
  kind_.reserve(size);
}

void FlowTable::shrink_to_fit() {
  from_.shrink_to_fit();
  to_.shrink_to_fit();
  id_.shrink_to_fit();
  kind_.shrink_to_fit();
}

std::uint64_t FlowTable::capacity_bytes() const {
  return (from_.capacity() + to_.capacity()) * sizeof(EventRef) + id_.capacity_bytes() +
         kind_.capacity() * sizeof(FlowKind);
}

}  // namespace tscope::trace
