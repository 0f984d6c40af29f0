// Views share storage and read the right elements; broadcasting follows NumPy's rules, including
// size-1 dims, zero-size tensors, non-contiguous operands and writes through expanded views.

#include <gtest/gtest.h>

#include <vector>

#include "tscope/engine/autograd.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

Tensor counting(const Shape& shape) {
  return arange(0, static_cast<double>(shape_numel(shape))).reshape(shape);
}

TEST(TensorView, TransposeSharesStorageAndSwapsStrides) {
  const Tensor x = counting({2, 3});
  const Tensor t = x.transpose(0, 1);
  EXPECT_EQ(t.storage(), x.storage());
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.strides(), (Shape{1, 3}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorView, ReshapeOfContiguousTensorIsAView) {
  const Tensor x = counting({2, 6});
  const Tensor r = x.reshape({3, -1});
  EXPECT_EQ(r.storage(), x.storage());
  EXPECT_EQ(r.shape(), (Shape{3, 4}));
}

TEST(TensorView, ReshapeOfTransposedTensorCopiesInRowMajorOrder) {
  const Tensor x = counting({2, 3});
  const Tensor r = x.transpose(0, 1).reshape({6});
  EXPECT_NE(r.storage(), x.storage());
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorView, ViewOverIncompatibleStridesIsRefused) {
  const Tensor t = counting({2, 3}).transpose(0, 1);
  EXPECT_THROW(t.view({6}), EngineError);
}

TEST(TensorView, NarrowSliceAndSelectReadTheRightElements) {
  const Tensor x = counting({3, 4});
  EXPECT_EQ(x.narrow(1, 1, 2).to_vector<float>(), (std::vector<float>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(x.slice(0, -2, 100).to_vector<float>(), (std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(x.select(1, 3).to_vector<float>(), (std::vector<float>{3, 7, 11}));
  EXPECT_EQ(x.narrow(1, 1, 2).storage(), x.storage());
}

TEST(TensorView, NarrowOutOfRangeIsRefused) {
  EXPECT_THROW(counting({3, 4}).narrow(1, 3, 2), EngineError);
}

TEST(TensorView, PermuteThenContiguousCopiesInRowMajorOrder) {
  const Tensor x = counting({2, 2, 3});
  const Tensor p = x.permute({2, 0, 1}).contiguous();
  EXPECT_TRUE(p.is_contiguous());
  EXPECT_EQ(p.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
}

TEST(TensorView, SqueezeAndUnsqueezeRoundTrip) {
  const Tensor x = counting({2, 3});
  const Tensor u = x.unsqueeze(1);
  EXPECT_EQ(u.shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(u.squeeze(1).shape(), (Shape{2, 3}));
  EXPECT_EQ(x.unsqueeze(-1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(x.squeeze(0).shape(), (Shape{2, 3}));
}

TEST(TensorView, ExpandReadsTheSameElementWithZeroStride) {
  const Tensor x = from_vector(std::vector<float>{1.0f, 2.0f}, {2, 1});
  const Tensor e = x.expand({2, 3});
  EXPECT_EQ(e.strides()[1], 0);
  EXPECT_EQ(e.storage(), x.storage());
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

TEST(TensorView, WritesThroughAnExpandedViewAreRefused) {
  Tensor e = zeros({3}).unsqueeze(0).expand({4, 3});
  EXPECT_TRUE(e.has_overlapping_elements());
  EXPECT_THROW(e.fill_(1.0), EngineError);
  EXPECT_THROW(e.add_(ones({4, 3})), EngineError);
}

TEST(TensorView, WritesToTheBaseShowThroughItsExpandedView) {
  Tensor base = zeros({3});
  const Tensor e = base.unsqueeze(0).expand({2, 3});
  base.narrow(0, 1, 1).fill_(5.0);
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{0, 5, 0, 0, 5, 0}));
}

TEST(TensorView, ViewsShareTheIdOfTheDataTheyView) {
  const Tensor x = counting({2, 3});
  EXPECT_EQ(x.id(), x.transpose(0, 1).id());
  EXPECT_EQ(x.id(), x.detach().id());
  EXPECT_EQ(x.id(), x.reshape({6}).unsqueeze(0).id());
  EXPECT_NE(x.id(), x.contiguous().transpose(0, 1).contiguous().id()) << "a copy is new data";
  EXPECT_NE(zeros({1}).id(), zeros({1}).id());
}

TEST(Broadcasting, SizeOneDimsStretchAgainstEachOther) {
  const Tensor column = from_vector(std::vector<float>{1.0f, 2.0f, 3.0f}, {3, 1});
  const Tensor row = from_vector(std::vector<float>{10.0f, 20.0f}, {1, 2});
  const Tensor sum_table = add(column, row);
  EXPECT_EQ(sum_table.shape(), (Shape{3, 2}));
  EXPECT_EQ(sum_table.to_vector<float>(), (std::vector<float>{11, 21, 12, 22, 13, 23}));
}

TEST(Broadcasting, MissingLeadingDimsAreAddedOnTheLeft) {
  const Tensor result =
      mul(counting({2, 2, 3}), from_vector(std::vector<float>{1.0f, 0.0f, -1.0f}, {3}));
  EXPECT_EQ(result.to_vector<float>(),
            (std::vector<float>{0, 0, -2, 3, 0, -5, 6, 0, -8, 9, 0, -11}));
}

TEST(Broadcasting, IncompatibleShapesAreAnErrorNamingBoth) {
  try {
    add(zeros({2, 3}), zeros({4}));
    FAIL() << "expected EngineError";
  } catch (const EngineError& error) {
    EXPECT_NE(std::string(error.what()).find("[2, 3]"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("[4]"), std::string::npos);
  }
}

TEST(Broadcasting, ZeroSizeTensorsGiveZeroSizeResults) {
  const Tensor empty_rows = zeros({0, 3});
  EXPECT_EQ(add(empty_rows, ones({1, 3})).shape(), (Shape{0, 3}));
  EXPECT_EQ(sum(empty_rows, {0}).to_vector<float>(), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(matmul(zeros({2, 0}), zeros({0, 3})).to_vector<float>(), (std::vector<float>(6, 0.0f)));
  EXPECT_EQ(relu(zeros({4, 0})).numel(), 0);
}

TEST(Broadcasting, NonContiguousOperandsGiveTheSameResultAsContiguousOnes) {
  Tensor a = counting({3, 4}).transpose(0, 1);
  const Tensor b = counting({4, 3}).mul_(0.5);
  EXPECT_EQ(add(a, b).to_vector<float>(), add(a.contiguous(), b).to_vector<float>());
  a.mul_(0.1);
  const std::vector<float> from_strided = exp(a).to_vector<float>();
  EXPECT_EQ(from_strided, exp(a.contiguous()).to_vector<float>());
}

TEST(Broadcasting, CopyBroadcastsTheSourceIntoTheDestination) {
  Tensor destination = zeros({2, 3});
  destination.copy_(from_vector(std::vector<float>{1.0f, 2.0f, 3.0f}, {3}));
  EXPECT_EQ(destination.to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

TEST(Factories, SeededRandomTensorsAreReproducible) {
  Generator first(42);
  Generator second(42);
  Generator other(43);
  const std::vector<float> a = randn({16}, first).to_vector<float>();
  EXPECT_EQ(a, randn({16}, second).to_vector<float>());
  EXPECT_NE(a, randn({16}, other).to_vector<float>());
}

TEST(Factories, ArangeFullAndInt64Tensors) {
  EXPECT_EQ(arange(1, 2, 0.25).to_vector<float>(), (std::vector<float>{1, 1.25, 1.5, 1.75}));
  EXPECT_EQ(full({2}, 7.5).to_vector<float>(), (std::vector<float>{7.5, 7.5}));
  const Tensor labels = arange(0, 3, 1, {.dtype = DType::kInt64});
  EXPECT_EQ(labels.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_THROW(labels.to_vector<float>(), EngineError);
}

TEST(Factories, FromVectorChecksTheElementCount) {
  EXPECT_THROW(from_vector(std::vector<float>{1.0f, 2.0f}, {3}), EngineError);
}

TEST(Factories, ItemAndElementAccess) {
  Tensor x = counting({2, 3});
  EXPECT_FLOAT_EQ(x.at({1, 2}), 5.0f);
  x.set_at({0, 1}, 9.0f);
  EXPECT_FLOAT_EQ(x.at({0, 1}), 9.0f);
  EXPECT_FLOAT_EQ(sum(x).item(), 23.0f);
  EXPECT_THROW(x.item(), EngineError);
  EXPECT_THROW(x.at({2, 0}), EngineError);
}

}  // namespace
}  // namespace tscope::engine
