#pragma once
// The arithmetic of a random-access iterator that walks the positions of a table and computes
// each element from its position (a flow of a FlowTable, an argument of an ArgList): `Derived`
// adds dereferencing through `position()`.

#include <compare>
#include <cstddef>
#include <iterator>
#include <type_traits>

namespace tscope::trace {

template <typename Derived, typename Reference>
class PositionIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = std::remove_cvref_t<Reference>;
  using difference_type = std::ptrdiff_t;
  using reference = Reference;

  Reference operator[](difference_type offset) const { return *(self() + offset); }
  Derived& operator++() {
    ++position_;
    return self();
  }
  Derived operator++(int) {
    Derived before = self();
    ++position_;
    return before;
  }
  Derived& operator--() {
    --position_;
    return self();
  }
  Derived operator--(int) {
    Derived before = self();
    --position_;
    return before;
  }
  Derived& operator+=(difference_type offset) {
    position_ = static_cast<std::size_t>(static_cast<difference_type>(position_) + offset);
    return self();
  }
  Derived& operator-=(difference_type offset) { return *this += -offset; }
  friend Derived operator+(Derived at, difference_type offset) { return at += offset; }
  friend Derived operator+(difference_type offset, Derived at) { return at += offset; }
  friend Derived operator-(Derived at, difference_type offset) { return at -= offset; }
  friend difference_type operator-(const Derived& a, const Derived& b) {
    return static_cast<difference_type>(a.position_) - static_cast<difference_type>(b.position_);
  }
  friend bool operator==(const Derived& a, const Derived& b) { return a.position_ == b.position_; }
  friend std::strong_ordering operator<=>(const Derived& a, const Derived& b) {
    return a.position_ <=> b.position_;
  }

 protected:
  std::size_t position() const { return position_; }

 private:
  friend Derived;
  PositionIterator() = default;
  explicit PositionIterator(std::size_t position) : position_(position) {}

  Derived& self() { return static_cast<Derived&>(*this); }
  const Derived& self() const { return static_cast<const Derived&>(*this); }

  std::size_t position_ = 0;
};

}  // namespace tscope::trace
