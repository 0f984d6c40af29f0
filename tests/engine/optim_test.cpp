// One or two optimizer steps checked against values worked out by hand from the published update
// rules (torch.optim's SGD, Adam and AdamW), with gradients produced by a real backward pass, and
// the cosine schedule against the rates PyTorch's CosineAnnealingLR gives.

#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dispatch.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/optim/adam.h"
#include "tscope/engine/optim/cosine_annealing.h"
#include "tscope/engine/optim/sgd.h"

namespace tscope::engine::optim {
namespace {

Tensor parameter_of(const std::vector<float>& values) {
  return from_vector(values, {static_cast<std::int64_t>(values.size())}, {.requires_grad = true});
}

// Backward of sum(p * g) leaves exactly g in p.grad().
void set_gradient_by_backward(const Tensor& parameter, const std::vector<float>& gradient) {
  sum(mul(parameter, from_vector(gradient, parameter.shape()))).backward();
}

void expect_values(const Tensor& tensor, const std::vector<float>& expected) {
  const auto actual = tensor.to_vector<float>();
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-6) << "element " << i;
  }
}

TEST(Sgd, PlainStepMovesAgainstTheGradient) {
  Tensor p = parameter_of({1.0f, 2.0f});
  Sgd sgd({p}, {.learning_rate = 0.1});
  set_gradient_by_backward(p, {0.5f, -1.0f});
  sgd.step();
  // p - lr g = [1 - 0.05, 2 + 0.1]
  expect_values(p, {0.95f, 2.1f});
}

TEST(Sgd, WeightDecayAddsTheParameterToTheGradient) {
  Tensor p = parameter_of({1.0f, 2.0f});
  Sgd sgd({p}, {.learning_rate = 0.1, .weight_decay = 0.5});
  set_gradient_by_backward(p, {0.5f, -1.0f});
  sgd.step();
  // g' = g + 0.5 p = [1.0, 0.0]; p - 0.1 g' = [0.9, 2.0]
  expect_values(p, {0.9f, 2.0f});
}

TEST(Sgd, MomentumAccumulatesAcrossSteps) {
  Tensor p = parameter_of({1.0f});
  Sgd sgd({p}, {.learning_rate = 0.1, .momentum = 0.9});
  set_gradient_by_backward(p, {1.0f});
  sgd.step();  // b = 1; p = 1 - 0.1 = 0.9
  expect_values(p, {0.9f});
  sgd.zero_grad();
  set_gradient_by_backward(p, {0.5f});
  sgd.step();  // b = 0.9 * 1 + 0.5 = 1.4; p = 0.9 - 0.14 = 0.76
  expect_values(p, {0.76f});
}

TEST(Adam, TwoStepsFollowTheBiasCorrectedUpdate) {
  Tensor p = parameter_of({0.5f});
  Adam adam({p}, {.learning_rate = 0.1});
  set_gradient_by_backward(p, {0.5f});
  adam.step();
  // m = 0.05, v = 0.00025; m^ = 0.5, v^ = 0.25; p = 0.5 - 0.1 * 0.5 / (0.5 + 1e-8) = 0.4
  expect_values(p, {0.4f});
  adam.zero_grad();
  set_gradient_by_backward(p, {-1.0f});
  adam.step();
  // m = 0.9 * 0.05 - 0.1 = -0.055, v = 0.999 * 0.00025 + 0.001 = 0.00124975;
  // m^ = -0.055 / 0.19 = -0.2894737, v^ = 0.00124975 / 0.001999 = 0.6251876, sqrt = 0.7906881;
  // p = 0.4 + 0.1 * 0.2894737 / 0.7906881 = 0.4366104
  expect_values(p, {0.4366104f});
  EXPECT_EQ(adam.step_count(), 2);
}

TEST(Adam, WeightDecayGoesThroughTheAdaptiveScaling) {
  Tensor p = parameter_of({2.0f, -4.0f});
  Adam adam({p}, {.learning_rate = 0.1, .weight_decay = 0.1});
  set_gradient_by_backward(p, {0.5f, 0.5f});
  adam.step();
  // g' = g + 0.1 p = [0.7, 0.1]; the first step moves each by lr * g'/|g'| = 0.1 * sign(g').
  expect_values(p, {1.9f, -4.1f});
}

TEST(AdamW, WeightDecayShrinksTheParameterDirectly) {
  Tensor p = parameter_of({2.0f, -4.0f});
  AdamW adamw({p}, {.learning_rate = 0.1, .weight_decay = 0.1});
  set_gradient_by_backward(p, {0.5f, 0.5f});
  adamw.step();
  // p (1 - lr wd) = [1.98, -3.96], then - lr * g/|g| = [1.88, -4.06]
  expect_values(p, {1.88f, -4.06f});
}

TEST(Optimizer, ZeroGradDropsTheGradients) {
  Tensor p = parameter_of({1.0f});
  Sgd sgd({p}, {.learning_rate = 0.1});
  set_gradient_by_backward(p, {3.0f});
  ASSERT_TRUE(p.grad().defined());
  sgd.zero_grad();
  EXPECT_FALSE(p.grad().defined());
}

TEST(Optimizer, ParametersWithoutGradientAreLeftAlone) {
  Tensor used = parameter_of({1.0f});
  Tensor unused = parameter_of({5.0f});
  Adam adam({used, unused}, {.learning_rate = 0.1});
  set_gradient_by_backward(used, {1.0f});
  adam.step();
  expect_values(unused, {5.0f});
  expect_values(used, {0.9f});
}

TEST(Sgd, UpdatingAllParametersAtOnceEqualsTheComposedUpdate) {
  // The fused sgd_step_ against the rule written out with the engine's elementwise ops.
  Tensor first = parameter_of({0.5f, -1.0f, 2.0f});
  Tensor second = parameter_of({3.0f});
  std::vector<Tensor> reference{parameter_of({0.5f, -1.0f, 2.0f}), parameter_of({3.0f})};
  std::vector<Tensor> reference_buffers(2);
  Sgd sgd({first, second}, {.learning_rate = 0.05, .momentum = 0.9, .weight_decay = 0.01});
  for (int step = 0; step < 3; ++step) {
    const std::vector<std::vector<float>> gradients{
        {0.25f * static_cast<float>(step + 1), -0.5f, 1.0f}, {-2.0f}};
    sgd.zero_grad();
    set_gradient_by_backward(first, gradients[0]);
    set_gradient_by_backward(second, gradients[1]);
    sgd.step();
    for (std::size_t i = 0; i < reference.size(); ++i) {
      const Tensor g =
          add(from_vector(gradients[i], reference[i].shape()), mul(reference[i], 0.01));
      reference_buffers[i] =
          reference_buffers[i].defined() ? add(mul(reference_buffers[i], 0.9), g) : g;
      reference[i] = add(reference[i], mul(reference_buffers[i], -0.05));
    }
  }
  const std::vector<float> first_expected = reference[0].to_vector<float>();
  const std::vector<float> first_actual = first.to_vector<float>();
  for (std::size_t i = 0; i < first_expected.size(); ++i) {
    EXPECT_NEAR(first_actual[i], first_expected[i], 1e-6) << "element " << i;
  }
  EXPECT_NEAR(second.to_vector<float>()[0], reference[1].to_vector<float>()[0], 1e-6);
}

TEST(Adam, UpdatingAllParametersAtOnceEqualsUpdatingEachAlone) {
  Tensor first = parameter_of({0.5f, -1.0f, 2.0f});
  Tensor second = parameter_of({3.0f});
  Tensor first_alone = parameter_of({0.5f, -1.0f, 2.0f});
  Tensor second_alone = parameter_of({3.0f});
  Adam together({first, second}, {.learning_rate = 0.05, .weight_decay = 0.01});
  Adam first_only({first_alone}, {.learning_rate = 0.05, .weight_decay = 0.01});
  Adam second_only({second_alone}, {.learning_rate = 0.05, .weight_decay = 0.01});
  for (int step = 0; step < 3; ++step) {
    const std::vector<float> gradient{0.25f * static_cast<float>(step + 1), -0.5f, 1.0f};
    for (Adam* adam : {&together, &first_only, &second_only})
      adam->zero_grad();
    set_gradient_by_backward(first, gradient);
    set_gradient_by_backward(first_alone, gradient);
    set_gradient_by_backward(second, {-2.0f});
    set_gradient_by_backward(second_alone, {-2.0f});
    for (Adam* adam : {&together, &first_only, &second_only})
      adam->step();
  }
  EXPECT_EQ(first.to_vector<float>(), first_alone.to_vector<float>());
  EXPECT_EQ(second.to_vector<float>(), second_alone.to_vector<float>());
}

TEST(Adam, TheFusedStepRejectsListsOfDifferentLengths) {
  std::vector<Tensor> parameters{parameter_of({1.0f}), parameter_of({2.0f})};
  std::vector<Tensor> gradients{parameter_of({1.0f})};
  std::vector<Tensor> moments{zeros({1}), zeros({1})};
  std::vector<Tensor> more_moments{zeros({1}), zeros({1})};
  try {
    run_op<AdamStepKernel>(OpKind::kAdamStep, std::span<Tensor>(parameters),
                           std::span<const Tensor>(gradients), std::span<Tensor>(moments),
                           std::span<Tensor>(more_moments), AdamStepConfig{});
    FAIL() << "expected EngineError";
  } catch (const EngineError& error) {
    EXPECT_NE(std::string(error.what()).find("adam_step_: 2 parameters but 1 gradients"),
              std::string::npos)
        << error.what();
  }
}

TEST(Optimizer, RejectsATensorThatDoesNotRequireGrad) {
  EXPECT_THROW(Sgd({from_vector(std::vector<float>{1.0f}, {1})}, {}), std::invalid_argument);
}

TEST(Optimizer, TheNextStepUsesTheRateSetBeforeIt) {
  Tensor p = parameter_of({1.0f});
  Sgd sgd({p}, {.learning_rate = 0.1});
  sgd.set_learning_rate(0.5);
  set_gradient_by_backward(p, {1.0f});
  sgd.step();
  expect_values(p, {0.5f});
  EXPECT_THROW(sgd.set_learning_rate(-1.0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(sgd.learning_rate(), 0.5);
}

TEST(CosineAnnealing, FollowsPyTorchsCosineAnnealingLR) {
  Tensor p = parameter_of({1.0f});
  Sgd sgd({p}, {.learning_rate = 0.1});
  CosineAnnealing schedule(sgd, 4, 0.01);
  // torch.optim.lr_scheduler.CosineAnnealingLR(SGD(lr=0.1), T_max=4, eta_min=0.01), PyTorch 1.13:
  // the rate before each of the first five steps.
  const std::vector<double> pytorch{0.1, 0.08681980515339464, 0.05500000000000001,
                                    0.023180194846605363, 0.01};
  for (std::size_t t = 0; t < pytorch.size(); ++t) {
    EXPECT_NEAR(sgd.learning_rate(), pytorch[t], 1e-15) << "step " << t;
    schedule.step();
  }
  // Past its steps the rate stays at the final one (PyTorch's would climb a second half-cosine).
  EXPECT_DOUBLE_EQ(sgd.learning_rate(), 0.01);
  EXPECT_EQ(schedule.steps_done(), 5);
}

TEST(CosineAnnealing, StartsFromTheOptimizersCurrentRate) {
  Tensor p = parameter_of({1.0f});
  Adam adam({p}, {.learning_rate = 2e-3});
  const CosineAnnealing schedule(adam, 10);
  EXPECT_DOUBLE_EQ(schedule.learning_rate_at(0), 2e-3);
  EXPECT_DOUBLE_EQ(schedule.learning_rate_at(5), 1e-3);
  EXPECT_DOUBLE_EQ(schedule.learning_rate_at(10), 0.0);
}

TEST(CosineAnnealing, RejectsAnEmptyRunAndAFinalRateAboveTheFirst) {
  Tensor p = parameter_of({1.0f});
  Sgd sgd({p}, {.learning_rate = 0.1});
  EXPECT_THROW(CosineAnnealing(sgd, 0), std::invalid_argument);
  EXPECT_THROW(CosineAnnealing(sgd, 10, 0.2), std::invalid_argument);
  EXPECT_THROW(CosineAnnealing(sgd, 10, -0.1), std::invalid_argument);
  EXPECT_THROW(CosineAnnealing(sgd, 10, std::nan("")), std::invalid_argument);
}

}  // namespace
}  // namespace tscope::engine::optim
