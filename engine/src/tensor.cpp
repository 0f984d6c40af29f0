#include "tscope/engine/tensor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>

#include "tscope/engine/errors.h"

namespace tscope::engine {
namespace {

std::uint64_t next_tensor_id() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Tensor::Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {
  if (impl_ && impl_->id == 0) impl_->id = next_tensor_id();
}

std::uint64_t Tensor::id() const {
  return impl_->id;
}
const Shape& Tensor::shape() const {
  return impl_->shape;
}
const Shape& Tensor::strides() const {
  return impl_->strides;
}
std::int64_t Tensor::offset() const {
  return impl_->offset;
}
std::int64_t Tensor::dim() const {
  return static_cast<std::int64_t>(impl_->shape.size());
}
std::int64_t Tensor::size(std::int64_t dim) const {
  return impl_->shape[static_cast<std::size_t>(wrap_dim(dim, this->dim(), "size"))];
}
std::int64_t Tensor::numel() const {
  return shape_numel(impl_->shape);
}
DType Tensor::dtype() const {
  return impl_->dtype;
}
Device Tensor::device() const {
  return impl_->storage->device();
}
const std::shared_ptr<Storage>& Tensor::storage() const {
  return impl_->storage;
}

bool Tensor::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = impl_->shape.size(); i-- > 0;) {
    if (impl_->shape[i] == 1) continue;
    if (impl_->strides[i] != expected) return false;
    expected *= impl_->shape[i];
  }
  return true;
}

bool Tensor::has_overlapping_elements() const {
  // Sorting dims by stride, each must step past everything the smaller ones cover.
  std::vector<std::size_t> order(impl_->shape.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::sort(
      order, [&](std::size_t a, std::size_t b) { return impl_->strides[a] < impl_->strides[b]; });
  std::int64_t covered = 0;
  for (const std::size_t d : order) {
    if (impl_->shape[d] <= 1) continue;
    if (impl_->strides[d] <= covered) return true;
    covered += impl_->strides[d] * (impl_->shape[d] - 1);
  }
  return false;
}

void* Tensor::raw_data() const {
  auto* base = static_cast<std::byte*>(impl_->storage->data());
  return base + impl_->offset * static_cast<std::int64_t>(element_size(impl_->dtype));
}

void Tensor::check_dtype(DType expected) const {
  if (!defined()) throw EngineError("access to the data of an undefined tensor");
  if (impl_->dtype != expected) {
    throw EngineError("tensor holds " + std::string(dtype_name(impl_->dtype)) + ", accessed as " +
                      std::string(dtype_name(expected)));
  }
  if (!device().is_cpu()) {
    throw EngineError("element access needs a cpu tensor, this one is on " + device().to_string());
  }
}

void Tensor::check_item() const {
  if (numel() != 1) {
    throw EngineError("item() needs a tensor of one element, got shape " +
                      shape_to_string(impl_->shape));
  }
}

std::int64_t Tensor::element_offset(std::span<const std::int64_t> index) const {
  if (static_cast<std::int64_t>(index.size()) != dim()) {
    throw EngineError("index of " + std::to_string(index.size()) + " coordinates for a tensor of " +
                      "shape " + shape_to_string(impl_->shape));
  }
  std::int64_t element = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0 || index[i] >= impl_->shape[i]) {
      throw EngineError("index " + shape_to_string(index) + " out of bounds for shape " +
                        shape_to_string(impl_->shape));
    }
    element += index[i] * impl_->strides[i];
  }
  return element;
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  const Tensor dense = detach().to(Device::cpu()).contiguous();
  const T* values = dense.data<T>();
  return std::vector<T>(values, values + dense.numel());
}
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<std::int64_t> Tensor::to_vector<std::int64_t>() const;

Tensor make_view(const Tensor& base, Shape shape, Shape strides, std::int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  // A view is its base's data, so it keeps the base's id: an op reading a reshaped or transposed
  // tensor reads what the base's writer wrote, and traces show that dataflow.
  impl->id = base.id();
  return Tensor(std::move(impl));
}

}  // namespace tscope::engine
