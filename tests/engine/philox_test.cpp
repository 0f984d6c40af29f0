// The counter-based generator: Philox4x32-10 against the known-answer vectors of its authors'
// Random123 distribution, the generator's reservations, and the distributions drawn from it.

#include "philox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "dispatch.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/generator.h"

namespace tscope::engine {
namespace {

struct KnownAnswer {
  PhiloxBlock counter;
  std::uint32_t key0;
  std::uint32_t key1;
  PhiloxBlock expected;
};

// Random123's kat_vectors, the three "philox4x32 10" lines.
TEST(Philox, MatchesTheKnownAnswerVectors) {
  const KnownAnswer answers[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const KnownAnswer& answer : answers) {
    const PhiloxBlock out = philox4x32_10(answer.counter, answer.key0, answer.key1);
    for (int word = 0; word < 4; ++word) {
      EXPECT_EQ(out.word[word], answer.expected.word[word]) << "word " << word;
    }
  }
}

TEST(Philox, SequenceReadsTheStreamBlockByBlock) {
  const PhiloxStream stream{.key = 0x1234'5678'9abc'def0, .first_block = 17};
  PhiloxSequence sequence(stream);
  for (std::uint64_t block = 0; block < 3; ++block) {
    const PhiloxBlock expected = philox_block(stream, block);
    for (int word = 0; word < 4; ++word)
      EXPECT_EQ(sequence.next(), expected.word[word]);
  }
}

TEST(Philox, ReservationsNeverOverlap) {
  Generator generator(9);
  const PhiloxStream first = generator.reserve(5);   // two blocks
  const PhiloxStream second = generator.reserve(1);  // one block
  const PhiloxStream third = generator.reserve(0);
  EXPECT_EQ(first.first_block, 0u);
  EXPECT_EQ(second.first_block, 2u);
  EXPECT_EQ(third.first_block, 3u);
  EXPECT_EQ(first.key, second.key);
}

TEST(Philox, DifferentSeedsGiveDifferentStreams) {
  Generator a(1);
  Generator b(2);
  EXPECT_NE(a.next_u64(), b.next_u64());
  Generator c(1);
  Generator d(1);
  EXPECT_EQ(c.next_u64(), d.next_u64());
  EXPECT_NE(c.next_u64(), Generator(1).next_u64()) << "a second value must come from new draws";
}

TEST(Philox, UnitFloatsCoverZeroToOneExclusive) {
  EXPECT_EQ(philox_unit_float(0u), 0.0f);
  EXPECT_LT(philox_unit_float(0xffffffffu), 1.0f);
  EXPECT_GT(philox_unit_float(0xffffffffu), 0.9999f);
}

TEST(Philox, UniformFillHasTheMomentsOfItsRange) {
  Generator generator(21);
  const std::vector<float> values = uniform({100000}, -2.0, 6.0, generator).to_vector<float>();
  double sum = 0.0;
  double squares = 0.0;
  for (const float v : values) {
    ASSERT_GE(v, -2.0f);
    ASSERT_LT(v, 6.0f);
    sum += v;
    squares += static_cast<double>(v) * v;
  }
  const double mean = sum / values.size();
  EXPECT_NEAR(mean, 2.0, 0.05);
  EXPECT_NEAR(squares / values.size() - mean * mean, 64.0 / 12.0, 0.1);
}

TEST(Philox, NormalFillHasTheMomentsOfItsDistribution) {
  Generator generator(22);
  const std::vector<float> values = randn({100000}, generator).to_vector<float>();
  double sum = 0.0;
  double squares = 0.0;
  std::size_t beyond_two_sigma = 0;
  for (const float v : values) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    squares += static_cast<double>(v) * v;
    if (std::abs(v) > 2.0f) ++beyond_two_sigma;
  }
  const double mean = sum / values.size();
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(squares / values.size() - mean * mean, 1.0, 0.03);
  // 4.55% of a normal distribution lies beyond two standard deviations.
  EXPECT_NEAR(static_cast<double>(beyond_two_sigma) / values.size(), 0.0455, 0.004);
}

TEST(Philox, AFillOfAStridedViewTakesTheDrawsInRowMajorOrder) {
  Generator dense_generator(5);
  Generator strided_generator(5);
  const Tensor dense = randn({6, 7}, dense_generator);
  Tensor transposed = zeros({7, 6}).transpose(0, 1);
  run_op<RandomFillKernel>(OpKind::kNormal, transposed, 0.0, 1.0, strided_generator);
  EXPECT_EQ(transposed.contiguous().to_vector<float>(), dense.to_vector<float>());
}

}  // namespace
}  // namespace tscope::engine
