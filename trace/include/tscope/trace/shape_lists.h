#pragma once
// Operators' input shape lists in flat arrays, one heap block for all extents rather than one per
// shape: a training run repeats a few dozen distinct lists, which TraceBuilder stores once each.

#include <cstdint>
#include <span>
#include <vector>

#include "tscope/trace/position_iterator.h"

namespace tscope::trace {

class ShapeLists {
 public:
  using Shape = std::span<const std::int64_t>;

  // The shapes of one list, viewing the table (valid while it lives).
  class List {
   public:
    class Iterator : public PositionIterator<Iterator, Shape> {
     public:
      Iterator() = default;
      Iterator(const ShapeLists* table, std::size_t shape)
          : PositionIterator(shape), table_(table) {}
      Shape operator*() const { return table_->shape(static_cast<std::uint32_t>(position())); }

     private:
      const ShapeLists* table_ = nullptr;
    };

    List() = default;
    List(const ShapeLists* table, std::uint32_t first, std::uint32_t count)
        : table_(table), first_(first), count_(count) {}
    std::size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    Shape operator[](std::size_t index) const {
      return table_->shape(first_ + static_cast<std::uint32_t>(index));
    }
    Iterator begin() const { return {table_, first_}; }
    Iterator end() const { return {table_, first_ + count_}; }

   private:
    const ShapeLists* table_ = nullptr;
    std::uint32_t first_ = 0;
    std::uint32_t count_ = 0;
  };

  // Appends a list (of vectors or spans of extents) and returns its index: lists are numbered in
  // the order they were appended. Throws TraceError past 2^32 - 1 extents, shapes or lists.
  template <typename Shapes>
  std::uint32_t append(const Shapes& shapes) {
    for (const auto& shape : shapes)
      append_shape(Shape(shape));
    return close_list();
  }
  // Throws TraceError for an index this table never returned.
  List list(std::uint32_t index) const;
  std::size_t size() const { return list_end_.size(); }
  bool equal(std::uint32_t index, const std::vector<std::vector<std::int64_t>>& shapes) const;

  void shrink_to_fit();
  std::uint64_t capacity_bytes() const;

  bool operator==(const ShapeLists&) const = default;

 private:
  Shape shape(std::uint32_t index) const;
  void append_shape(Shape shape);
  std::uint32_t close_list();

  std::vector<std::int64_t> extents_;
  // Shape s holds extents [end of shape s - 1, shape_end_[s]); list l holds shapes
  // [end of list l - 1, list_end_[l]).
  std::vector<std::uint32_t> shape_end_;
  std::vector<std::uint32_t> list_end_;
};

}  // namespace tscope::trace
