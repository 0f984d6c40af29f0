// View ops: new shapes and strides over the same storage, each recording how its gradient maps
// back onto the viewed tensor.

#include <algorithm>
#include <optional>

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

// Replaces a single -1 by what the element count implies, and checks the count.
Shape resolve_shape(const Shape& requested, std::int64_t numel, const char* op) {
  Shape shape = requested;
  std::optional<std::size_t> inferred;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred) throw EngineError(std::string(op) + ": more than one -1 in the shape");
      inferred = i;
    } else if (shape[i] < 0) {
      throw EngineError(std::string(op) + ": negative extent in " + shape_to_string(requested));
    } else {
      known *= shape[i];
    }
  }
  if (inferred) {
    if (known == 0 || numel % known != 0) {
      throw EngineError(std::string(op) + ": shape " + shape_to_string(requested) +
                        " cannot hold " + std::to_string(numel) + " elements");
    }
    shape[*inferred] = numel / known;
  } else if (known != numel) {
    throw EngineError(std::string(op) + ": shape " + shape_to_string(requested) + " cannot hold " +
                      std::to_string(numel) + " elements");
  }
  return shape;
}

// Strides that read `old_shape`/`old_strides` memory as `new_shape`, when such strides exist
// (the element order must survive: only runs of dims that are contiguous with each other can be
// merged or split). The same rule as NumPy's and ATen's view.
std::optional<Shape> view_strides(const Shape& old_shape, const Shape& old_strides,
                                  const Shape& new_shape) {
  if (old_shape.empty() || shape_numel(old_shape) == 0) return contiguous_strides(new_shape);
  Shape new_strides(new_shape.size(), 1);
  auto view_d = static_cast<std::int64_t>(new_shape.size()) - 1;
  std::int64_t chunk_base_stride = old_strides.back();
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (auto tensor_d = static_cast<std::int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    const auto td = static_cast<std::size_t>(tensor_d);
    tensor_numel *= old_shape[td];
    if (tensor_d == 0 ||
        (old_shape[td - 1] != 1 && old_strides[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_shape[static_cast<std::size_t>(view_d)] == 1)) {
        new_strides[static_cast<std::size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= new_shape[static_cast<std::size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

// A view of `base` that records `backward` when base takes part in autograd.
Tensor recorded_view(const Tensor& base, Shape shape, Shape strides, std::int64_t offset,
                     std::string_view name, BackwardFn backward) {
  Tensor out = make_view(base, std::move(shape), std::move(strides), offset);
  record_if_needed(out, name, {base}, std::move(backward));
  return out;
}

Tensor reshape_backward_to(const Tensor& grad, const Shape& shape) {
  return grad.reshape(shape);
}

}  // namespace

Tensor Tensor::view(const Shape& shape) const {
  const Shape target = resolve_shape(shape, numel(), "view");
  std::optional<Shape> strides = view_strides(this->shape(), this->strides(), target);
  if (!strides) {
    throw EngineError("view: shape " + shape_to_string(target) +
                      " cannot be expressed over the strides of a tensor of shape " +
                      shape_to_string(this->shape()) + "; use reshape() to copy");
  }
  return recorded_view(*this, target, std::move(*strides), offset(), "ViewBackward",
                       [input_shape = this->shape()](const Tensor& grad, const GradNeeds&) {
                         return std::vector<Tensor>{reshape_backward_to(grad, input_shape)};
                       });
}

Tensor Tensor::reshape(const Shape& shape) const {
  const Shape target = resolve_shape(shape, numel(), "reshape");
  if (view_strides(this->shape(), this->strides(), target)) return view(target);
  return contiguous().view(target);
}

Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const {
  const auto d0 = static_cast<std::size_t>(wrap_dim(dim0, dim(), "transpose"));
  const auto d1 = static_cast<std::size_t>(wrap_dim(dim1, dim(), "transpose"));
  Shape shape = this->shape();
  Shape strides = this->strides();
  std::swap(shape[d0], shape[d1]);
  std::swap(strides[d0], strides[d1]);
  return recorded_view(*this, std::move(shape), std::move(strides), offset(), "TransposeBackward",
                       [dim0, dim1](const Tensor& grad, const GradNeeds&) {
                         return std::vector<Tensor>{grad.transpose(dim0, dim1)};
                       });
}

Tensor Tensor::permute(const Shape& dims) const {
  if (static_cast<std::int64_t>(dims.size()) != dim()) {
    throw EngineError("permute: " + shape_to_string(dims) + " for a tensor of " +
                      std::to_string(dim()) + " dims");
  }
  Shape shape(dims.size());
  Shape strides(dims.size());
  Shape inverse(dims.size(), -1);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto source = static_cast<std::size_t>(wrap_dim(dims[i], dim(), "permute"));
    if (inverse[source] != -1) {
      throw EngineError("permute: dimension repeated in " + shape_to_string(dims));
    }
    inverse[source] = static_cast<std::int64_t>(i);
    shape[i] = this->shape()[source];
    strides[i] = this->strides()[source];
  }
  return recorded_view(*this, std::move(shape), std::move(strides), offset(), "PermuteBackward",
                       [inverse](const Tensor& grad, const GradNeeds&) {
                         return std::vector<Tensor>{grad.permute(inverse)};
                       });
}

Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
  const auto d = static_cast<std::size_t>(wrap_dim(dim, this->dim(), "narrow"));
  const std::int64_t extent = shape()[d];
  if (start < 0 || length < 0 || start + length > extent) {
    throw EngineError("narrow: [" + std::to_string(start) + ", " + std::to_string(start + length) +
                      ") is outside dimension " + std::to_string(dim) + " of extent " +
                      std::to_string(extent));
  }
  Shape shape = this->shape();
  shape[d] = length;
  const std::int64_t new_offset = offset() + start * strides()[d];
  return recorded_view(
      *this, std::move(shape), strides(), new_offset, "NarrowBackward",
      [input_shape = this->shape(), d, start, length](const Tensor& grad, const GradNeeds&) {
        Tensor full_grad = zeros(input_shape, {.device = grad.device()});
        full_grad.narrow(static_cast<std::int64_t>(d), start, length).copy_(grad);
        return std::vector<Tensor>{full_grad};
      });
}

Tensor Tensor::slice(std::int64_t dim, std::int64_t start, std::int64_t end) const {
  const std::int64_t extent = size(dim);
  auto clamp = [extent](std::int64_t position) {
    return std::clamp<std::int64_t>(position < 0 ? position + extent : position, 0, extent);
  };
  const std::int64_t first = clamp(start);
  return narrow(dim, first, std::max<std::int64_t>(clamp(end) - first, 0));
}

Tensor Tensor::select(std::int64_t dim, std::int64_t index) const {
  const std::int64_t extent = size(dim);
  const std::int64_t position = index < 0 ? index + extent : index;
  return narrow(dim, position, 1).squeeze(dim);
}

Tensor Tensor::expand(const Shape& shape) const {
  if (shape.size() < this->shape().size()) {
    throw EngineError("expand: cannot expand shape " + shape_to_string(this->shape()) + " to " +
                      shape_to_string(shape));
  }
  Shape target = shape;
  Shape strides(shape.size(), 0);
  const std::size_t lead = shape.size() - this->shape().size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i < lead) {
      if (target[i] < 0) throw EngineError("expand: -1 is not allowed for new leading dims");
      continue;
    }
    const std::int64_t current = this->shape()[i - lead];
    if (target[i] == -1) target[i] = current;
    if (current == target[i]) {
      strides[i] = this->strides()[i - lead];
    } else if (current != 1) {
      throw EngineError("expand: cannot expand shape " + shape_to_string(this->shape()) + " to " +
                        shape_to_string(shape));
    }
  }
  return recorded_view(*this, std::move(target), std::move(strides), offset(), "ExpandBackward",
                       [input_shape = this->shape()](const Tensor& grad, const GradNeeds&) {
                         return std::vector<Tensor>{sum_to(grad, input_shape)};
                       });
}

Tensor Tensor::squeeze(std::int64_t dim) const {
  const auto d = static_cast<std::size_t>(wrap_dim(dim, this->dim(), "squeeze"));
  if (shape()[d] != 1) return *this;
  Shape shape = this->shape();
  Shape strides = this->strides();
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(d));
  strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(d));
  return recorded_view(*this, std::move(shape), std::move(strides), offset(), "SqueezeBackward",
                       [input_shape = this->shape()](const Tensor& grad, const GradNeeds&) {
                         return std::vector<Tensor>{reshape_backward_to(grad, input_shape)};
                       });
}

Tensor Tensor::unsqueeze(std::int64_t dim) const {
  const auto d = static_cast<std::size_t>(wrap_dim(dim, this->dim() + 1, "unsqueeze"));
  Shape shape = this->shape();
  Shape strides = this->strides();
  const std::int64_t stride = d < strides.size() ? strides[d] * shape[d] : 1;
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(d), 1);
  strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d), stride);
  return recorded_view(*this, std::move(shape), std::move(strides), offset(), "UnsqueezeBackward",
                       [input_shape = this->shape()](const Tensor& grad, const GradNeeds&) {
                         return std::vector<Tensor>{reshape_backward_to(grad, input_shape)};
                       });
}

Tensor Tensor::flatten(std::int64_t start_dim, std::int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  const auto first = static_cast<std::size_t>(wrap_dim(start_dim, dim(), "flatten"));
  const auto last = static_cast<std::size_t>(wrap_dim(end_dim, dim(), "flatten"));
  if (first > last) throw EngineError("flatten: start_dim comes after end_dim");
  Shape shape(this->shape().begin(), this->shape().begin() + static_cast<std::ptrdiff_t>(first));
  std::int64_t merged = 1;
  for (std::size_t i = first; i <= last; ++i)
    merged *= this->shape()[i];
  shape.push_back(merged);
  shape.insert(shape.end(), this->shape().begin() + static_cast<std::ptrdiff_t>(last) + 1,
               this->shape().end());
  return reshape(shape);
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = empty(shape(), {.dtype = dtype(), .device = device()});
  run_op<InplaceBinaryKernel>(OpKind::kCopy, out, *this);
  record_if_needed(out, "CloneBackward", {*this},
                   [](const Tensor& grad, const GradNeeds&) { return std::vector<Tensor>{grad}; });
  return out;
}

}  // namespace tscope::engine
