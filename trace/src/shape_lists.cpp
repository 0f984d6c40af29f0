#include "tscope/trace/shape_lists.h"

#include <algorithm>
#include <limits>
#include <string>

#include "tscope/trace/errors.h"

namespace tscope::trace {
namespace {

template <typename Value>
std::uint32_t checked_size(const std::vector<Value>& table, std::size_t added, const char* what) {
  const std::size_t size = table.size() + added;
  if (size > std::numeric_limits<std::uint32_t>::max()) {
    throw TraceError(std::string("more than 2^32 - 1 ") + what + " in the shape table");
  }
  return static_cast<std::uint32_t>(size);
}

}  // namespace

void ShapeLists::append_shape(Shape shape) {
  const std::uint32_t end = checked_size(extents_, shape.size(), "extents");
  checked_size(shape_end_, 1, "shapes");
  extents_.insert(extents_.end(), shape.begin(), shape.end());
  shape_end_.push_back(end);
}

std::uint32_t ShapeLists::close_list() {
  const std::uint32_t list = checked_size(list_end_, 0, "shape lists");
  list_end_.push_back(static_cast<std::uint32_t>(shape_end_.size()));
  return list;
}

ShapeLists::List ShapeLists::list(std::uint32_t index) const {
  if (index >= list_end_.size()) {
    throw TraceError("shape list " + std::to_string(index) + " outside a table of " +
                     std::to_string(list_end_.size()));
  }
  const std::uint32_t first = index == 0 ? 0 : list_end_[index - 1];
  return {this, first, list_end_[index] - first};
}

ShapeLists::Shape ShapeLists::shape(std::uint32_t index) const {
  const std::uint32_t first = index == 0 ? 0 : shape_end_[index - 1];
  return Shape(extents_).subspan(first, shape_end_[index] - first);
}

bool ShapeLists::equal(std::uint32_t index,
                       const std::vector<std::vector<std::int64_t>>& shapes) const {
  const List stored = list(index);
  if (stored.size() != shapes.size()) return false;
  for (std::size_t shape = 0; shape < shapes.size(); ++shape) {
    if (!std::ranges::equal(stored[shape], shapes[shape])) return false;
  }
  return true;
}

void ShapeLists::shrink_to_fit() {
  extents_.shrink_to_fit();
  shape_end_.shrink_to_fit();
  list_end_.shrink_to_fit();
}

std::uint64_t ShapeLists::capacity_bytes() const {
  return extents_.capacity() * sizeof(std::int64_t) +
         (shape_end_.capacity() + list_end_.capacity()) * sizeof(std::uint32_t);
}

}  // namespace tscope::trace
