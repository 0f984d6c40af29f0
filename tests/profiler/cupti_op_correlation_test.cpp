// While GPU capture runs, every recorded op pushes a fresh id onto the correlation stack that GPU
// capture installed (CUPTI's external correlation) until it finishes, and the op's span carries
// that id, which ties it to the kernels CUPTI reports; without GPU capture ops carry none.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cupti/op_correlation.h"
#include "trace_queries.h"
#include "tscope/profiler/record.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

using testing::spans_named;
using testing::temporary_trace_path;

// What the correlation stack saw, in the order it saw it: ids pushed, 0 for a pop.
std::vector<std::uint64_t> stack_calls;

void push_recorded(std::uint64_t id) {
  stack_calls.push_back(id);
}
void pop_recorded() {
  stack_calls.push_back(0);
}

// Installs the recording stack as GPU capture would install CUPTI's, for one test.
class OpCorrelation : public ::testing::Test {
 protected:
  void SetUp() override {
    stack_calls.clear();
    set_op_correlation_hooks(&push_recorded, &pop_recorded);
  }
  void TearDown() override { set_op_correlation_hooks(nullptr, nullptr); }

  trace::Trace record_ops(int count) {
    const auto output = temporary_trace_path();
    Session session({.output = output, .sample_process_counters = false});
    session.start();
    for (int i = 0; i < count; ++i) {
      OpRange op("matmul");
      op.finish({});
    }
    session.stop();
    return trace::load_trace(output);
  }
};

TEST_F(OpCorrelation, EachOpPushesAFreshIdAndPopsItWhenItFinishes) {
  record_ops(2);
  ASSERT_EQ(stack_calls.size(), 4u);
  EXPECT_NE(stack_calls[0], 0u);
  EXPECT_EQ(stack_calls[1], 0u);
  EXPECT_NE(stack_calls[2], 0u);
  EXPECT_NE(stack_calls[2], stack_calls[0]);
  EXPECT_EQ(stack_calls[3], 0u);
}

TEST_F(OpCorrelation, OpSpanCarriesTheIdItPushed) {
  const trace::Trace recorded = record_ops(1);
  const auto ops = spans_named(recorded, "matmul");
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_FALSE(stack_calls.empty());
  EXPECT_EQ(recorded.span_record(ops[0].track, ops[0].index).external_correlation_id,
            stack_calls[0]);
}

TEST_F(OpCorrelation, OpsOutsideASessionTouchNoStack) {
  OpRange op("matmul");
  op.finish({});
  EXPECT_TRUE(stack_calls.empty());
}

TEST(OpCorrelationWithoutGpuCapture, OpSpanCarriesNoId) {
  const auto output = temporary_trace_path();
  Session session({.output = output, .sample_process_counters = false});
  session.start();
  OpRange("matmul").finish({});
  session.stop();
  const trace::Trace recorded = trace::load_trace(output);
  const auto ops = spans_named(recorded, "matmul");
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(recorded.span_record(ops[0].track, ops[0].index).external_correlation_id, 0u);
}

}  // namespace
}  // namespace tscope::profiler
