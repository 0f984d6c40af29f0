#pragma once
// The tensor handle: a cheap, shared reference to an n-dimensional view (shape, strides, offset)
// of a Storage, plus the autograd state that makes it part of a define-by-run graph.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "tscope/engine/device.h"
#include "tscope/engine/dtype.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/storage.h"

namespace tscope::engine {

class Node;
struct TensorImpl;

class Tensor {
 public:
  // An undefined tensor (for example the grad of a leaf no backward has reached yet).
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl);

  bool defined() const { return impl_ != nullptr; }

  // Names the tensor's data for the lifetime of the process: unique per allocation, shared by
  // every view of it (reshape, transpose, detach). The profiler records the ids each op reads
  // and writes, so dataflow through views stays visible.
  std::uint64_t id() const;
  const Shape& shape() const;
  const Shape& strides() const;
  std::int64_t offset() const;
  std::int64_t dim() const;
  std::int64_t size(std::int64_t dim) const;
  std::int64_t numel() const;
  DType dtype() const;
  Device device() const;
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const;
  // True when two elements of this view share memory (an expanded view): writes are refused.
  bool has_overlapping_elements() const;

  // Address of element [0, ..., 0]; checks the dtype for the typed form.
  void* raw_data() const;
  template <typename T>
  T* data() const {
    check_dtype(DTypeOf<T>::kValue);
    return static_cast<T*>(raw_data());
  }

  // Element access for host tensors (tests, labels, small results); item() and to_vector() also
  // take a device tensor, copying it to the host (and so waiting for the device).
  template <typename T = float>
  T item() const {
    check_item();
    if (!device().is_cpu()) return to(Device::cpu()).template item<T>();
    return *data<T>();
  }
  template <typename T = float>
  T at(std::span<const std::int64_t> index) const {
    return data<T>()[element_offset(index)];
  }
  template <typename T = float>
  T at(std::initializer_list<std::int64_t> index) const {
    return at<T>(std::span<const std::int64_t>(index.begin(), index.size()));
  }
  template <typename T = float>
  void set_at(std::initializer_list<std::int64_t> index, T value) const {
    data<T>()[element_offset(std::span<const std::int64_t>(index.begin(), index.size()))] = value;
  }
  // Row-major copy of the elements of a host tensor.
  template <typename T = float>
  std::vector<T> to_vector() const;

  // Views: share storage with this tensor, and record autograd like any op.
  Tensor view(const Shape& shape) const;     // must be expressible over these strides
  Tensor reshape(const Shape& shape) const;  // a view when possible, else a copy
  Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
  Tensor permute(const Shape& dims) const;
  Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
  Tensor slice(std::int64_t dim, std::int64_t start, std::int64_t end) const;
  Tensor select(std::int64_t dim, std::int64_t index) const;
  Tensor expand(const Shape& shape) const;
  Tensor squeeze(std::int64_t dim) const;
  Tensor unsqueeze(std::int64_t dim) const;
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;
  Tensor contiguous() const;
  Tensor clone() const;
  // A copy on `device` (this tensor when already there); see to_device in transfer.h.
  Tensor to(Device device, bool non_blocking = false) const;

  // In-place updates (optimizers, initialisation). Refused on a leaf that requires grad while
  // grad mode is on, and on views whose elements overlap.
  Tensor& copy_(const Tensor& source);
  Tensor& fill_(double value);
  Tensor& zero_() { return fill_(0.0); }
  Tensor& add_(const Tensor& other, double alpha = 1.0);
  Tensor& mul_(double factor);

  // Autograd.
  bool requires_grad() const;
  Tensor& set_requires_grad(bool requires_grad);
  bool is_leaf() const;
  Tensor grad() const;
  void set_grad(const Tensor& grad) const;
  const std::shared_ptr<Node>& grad_fn() const;
  // Backpropagates from a one-element tensor (gradient 1) into the leaves' grad.
  void backward(bool retain_graph = false) const;
  void backward(const Tensor& gradient, bool retain_graph = false) const;
  // Runs `hook` on this leaf whenever a backward pass has added its gradient into grad() (as
  // PyTorch's post-accumulate-grad hooks do): the point where data-parallel training can start
  // reducing a gradient while backward goes on. One hook per leaf; an empty one removes it.
  void set_post_accumulate_grad_hook(std::function<void(const Tensor& leaf)> hook) const;
  // Same storage, no history, requires_grad off.
  Tensor detach() const;

  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }

 private:
  void check_dtype(DType expected) const;
  void check_item() const;
  std::int64_t element_offset(std::span<const std::int64_t> index) const;

  std::shared_ptr<TensorImpl> impl_;
};

// A tensor's state; shared by every handle to it.
struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  Shape strides;
  std::int64_t offset = 0;  // in elements
  DType dtype = DType::kFloat32;
  std::uint64_t id = 0;
  bool requires_grad = false;
  std::shared_ptr<TensorImpl> grad;
  std::shared_ptr<Node> grad_fn;
  // A leaf's gradient sink; weak because the graph owns it and the leaf must not keep it alive.
  std::weak_ptr<Node> grad_accumulator;
  std::function<void(const Tensor& leaf)> post_accumulate_grad_hook;
};

// Builds a view of `base`'s storage without recording autograd (kernels and view ops use it).
Tensor make_view(const Tensor& base, Shape shape, Shape strides, std::int64_t offset);

}  // namespace tscope::engine
