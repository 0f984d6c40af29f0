// Elementwise ops and their gradients. Gradients of broadcast inputs are summed back to the
// input's shape.

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

Tensor run_binary(OpKind op, const Tensor& a, const Tensor& b) {
  return run_op<BinaryKernel>(op, a, b);
}

Tensor run_unary(OpKind op, const Tensor& x) {
  return run_op<UnaryKernel>(op, x);
}

Tensor run_unary_scalar(OpKind op, const Tensor& x, double scalar) {
  return run_op<UnaryScalarKernel>(op, x, scalar);
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out = run_binary(OpKind::kAdd, a, b);
  record_if_needed(
      out, "AddBackward", {a, b},
      [a_shape = a.shape(), b_shape = b.shape()](const Tensor& grad, const GradNeeds& needs) {
        return std::vector<Tensor>{needs[0] ? sum_to(grad, a_shape) : Tensor(),
                                   needs[1] ? sum_to(grad, b_shape) : Tensor()};
      });
  return out;
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Tensor out = run_binary(OpKind::kSub, a, b);
  record_if_needed(
      out, "SubBackward", {a, b},
      [a_shape = a.shape(), b_shape = b.shape()](const Tensor& grad, const GradNeeds& needs) {
        return std::vector<Tensor>{needs[0] ? sum_to(grad, a_shape) : Tensor(),
                                   needs[1] ? sum_to(neg(grad), b_shape) : Tensor()};
      });
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = run_binary(OpKind::kMul, a, b);
  record_if_needed(out, "MulBackward", {a, b},
                   [a = a.detach(), b = b.detach()](const Tensor& grad, const GradNeeds& needs) {
                     return std::vector<Tensor>{
                         needs[0] ? sum_to(mul(grad, b), a.shape()) : Tensor(),
                         needs[1] ? sum_to(mul(grad, a), b.shape()) : Tensor()};
                   });
  return out;
}

Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = run_binary(OpKind::kDiv, a, b);
  record_if_needed(
      out, "DivBackward", {a, b},
      [a = a.detach(), b = b.detach()](const Tensor& grad, const GradNeeds& needs) {
        // d(a/b)/db = -a / b^2
        return std::vector<Tensor>{
            needs[0] ? sum_to(div(grad, b), a.shape()) : Tensor(),
            needs[1] ? sum_to(neg(div(mul(grad, a), mul(b, b))), b.shape()) : Tensor()};
      });
  return out;
}

Tensor add(const Tensor& a, double b) {
  Tensor out = run_unary_scalar(OpKind::kAddScalar, a, b);
  record_if_needed(out, "AddScalarBackward", {a},
                   [](const Tensor& grad, const GradNeeds&) { return std::vector<Tensor>{grad}; });
  return out;
}

Tensor sub(const Tensor& a, double b) {
  return add(a, -b);
}

Tensor mul(const Tensor& a, double b) {
  Tensor out = run_unary_scalar(OpKind::kMulScalar, a, b);
  record_if_needed(out, "MulScalarBackward", {a}, [b](const Tensor& grad, const GradNeeds&) {
    return std::vector<Tensor>{mul(grad, b)};
  });
  return out;
}

Tensor div(const Tensor& a, double b) {
  return mul(a, 1.0 / b);
}

Tensor neg(const Tensor& x) {
  Tensor out = run_unary(OpKind::kNeg, x);
  record_if_needed(out, "NegBackward", {x}, [](const Tensor& grad, const GradNeeds&) {
    return std::vector<Tensor>{neg(grad)};
  });
  return out;
}

Tensor exp(const Tensor& x) {
  Tensor out = run_unary(OpKind::kExp, x);
  record_if_needed(out, "ExpBackward", {x},
                   [y = out.detach()](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{mul(grad, y)};
                   });
  return out;
}

Tensor log(const Tensor& x) {
  Tensor out = run_unary(OpKind::kLog, x);
  record_if_needed(out, "LogBackward", {x}, [x = x.detach()](const Tensor& grad, const GradNeeds&) {
    return std::vector<Tensor>{div(grad, x)};
  });
  return out;
}

Tensor sqrt(const Tensor& x) {
  Tensor out = run_unary(OpKind::kSqrt, x);
  record_if_needed(out, "SqrtBackward", {x},
                   [y = out.detach()](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{div(grad, mul(y, 2.0))};
                   });
  return out;
}

Tensor pow(const Tensor& x, double exponent) {
  Tensor out = run_unary_scalar(OpKind::kPowScalar, x, exponent);
  record_if_needed(out, "PowBackward", {x},
                   [x = x.detach(), exponent](const Tensor& grad, const GradNeeds&) {
                     const Tensor slope = mul(pow(x, exponent - 1.0), exponent);
                     return std::vector<Tensor>{mul(grad, slope)};
                   });
  return out;
}

Tensor relu(const Tensor& x) {
  Tensor out = run_unary(OpKind::kRelu, x);
  record_if_needed(out, "ReluBackward", {x},
                   [x = x.detach()](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{run_binary(OpKind::kReluBackward, grad, x)};
                   });
  return out;
}

Tensor gelu(const Tensor& x) {
  Tensor out = run_unary(OpKind::kGelu, x);
  record_if_needed(out, "GeluBackward", {x},
                   [x = x.detach()](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{run_binary(OpKind::kGeluBackward, grad, x)};
                   });
  return out;
}

Tensor sigmoid(const Tensor& x) {
  Tensor out = run_unary(OpKind::kSigmoid, x);
  record_if_needed(out, "SigmoidBackward", {x},
                   [y = out.detach()](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{run_binary(OpKind::kSigmoidBackward, grad, y)};
                   });
  return out;
}

Tensor tanh(const Tensor& x) {
  Tensor out = run_unary(OpKind::kTanh, x);
  record_if_needed(out, "TanhBackward", {x},
                   [y = out.detach()](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{run_binary(OpKind::kTanhBackward, grad, y)};
                   });
  return out;
}

Tensor operator+(const Tensor& a, const Tensor& b) {
  return add(a, b);
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  return sub(a, b);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  return mul(a, b);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  return div(a, b);
}
Tensor operator+(const Tensor& a, double b) {
  return add(a, b);
}
Tensor operator-(const Tensor& a, double b) {
  return sub(a, b);
}
Tensor operator*(const Tensor& a, double b) {
  return mul(a, b);
}
Tensor operator/(const Tensor& a, double b) {
  return div(a, b);
}
Tensor operator*(double a, const Tensor& b) {
  return mul(b, a);
}
Tensor operator-(const Tensor& x) {
  return neg(x);
}

}  // namespace tscope::engine
