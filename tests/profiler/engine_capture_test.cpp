// A real short training run of the Fashion-MNIST example under a session: every op, allocation,
// loader load and wait, optimizer step and training step is in the trace, with the op detail and
// memory attribution the analyzer relies on.

#include <gtest/gtest.h>

#include <set>

#include "fashion_mnist/models.h"
#include "fashion_mnist/training.h"
#include "scratch_folder.h"
#include "test_data.h"
#include "trace_queries.h"
#include "tscope/engine/data/fashion_mnist.h"
#include "tscope/engine/optim/adam.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

using testing::spans_named;
using trace::Category;

class EngineCapture : public ::testing::Test {
 protected:
  static constexpr std::int64_t kSteps = 3;

  static void SetUpTestSuite() {
    const auto data = tscope::testing::fashion_mnist_dir();
    if (!std::filesystem::exists(data / "train-images-idx3-ubyte.gz")) return;
    path_ = new std::filesystem::path(tscope::testing::scratch_path("tscope-engine-capture.tsc"));
    const engine::FashionMnist train_set(data.string(), engine::FashionMnistSplit::kTrain);
    engine::Generator generator(0);
    auto model = examples::make_model(examples::ModelKind::kCnn, generator);
    engine::optim::Adam optimizer(model->parameters(), {.learning_rate = 1e-3});
    examples::BatchLoader loader(train_set, {.batch_size = 32, .shuffle = true, .num_workers = 2});
    examples::StepBudget budget{.max_steps = kSteps};
    Session session({.output = *path_});
    session.start();
    examples::train_epoch(*model, optimizer, loader, budget);
    session.stop();
    recorded_ = new trace::Trace(trace::load_trace(*path_));
  }
  static void TearDownTestSuite() {
    if (path_ != nullptr) std::filesystem::remove(*path_);
    delete path_;
    delete recorded_;
  }
  void SetUp() override {
    TSCOPE_REQUIRE_FILE(tscope::testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz");
    ASSERT_NE(recorded_, nullptr);
  }

  static std::size_t count_category(Category category) {
    return recorded_->counts().spans_by_category[static_cast<int>(category)];
  }

  static inline std::filesystem::path* path_ = nullptr;
  static inline trace::Trace* recorded_ = nullptr;
};

TEST_F(EngineCapture, NamesEveryTrainingStep) {
  for (std::int64_t step = 0; step < kSteps; ++step) {
    const auto spans = spans_named(*recorded_, "step " + std::to_string(step));
    ASSERT_EQ(spans.size(), 1u) << step;
    EXPECT_EQ(recorded_->track(spans[0].track).spans().category[spans[0].index], Category::kStep);
  }
}

TEST_F(EngineCapture, RecordsOpsWithShapesFlopsBytesAndTensorIds) {
  const auto matmuls = spans_named(*recorded_, "matmul");
  ASSERT_FALSE(matmuls.empty());
  const trace::SpanRecord matmul = recorded_->span_record(matmuls[0].track, matmuls[0].index);
  EXPECT_EQ(matmul.category, Category::kCpuOp);
  ASSERT_TRUE(matmul.op.has_value());
  EXPECT_EQ(matmul.op->input_shapes.size(), 2u);
  EXPECT_GT(matmul.op->flops, 0u);
  EXPECT_GT(matmul.op->bytes_read, 0u);
  EXPECT_GT(matmul.op->bytes_written, 0u);
  EXPECT_EQ(matmul.op->tensors_read.size(), 2u);
  EXPECT_EQ(matmul.op->tensors_written.size(), 1u);
  EXPECT_GT(count_category(Category::kCpuOp), std::size_t{kSteps} * 20);
}

// 2 N OC OH OW C KH KW for the forward and both gradients, whatever else the forward returns
// (it also hands back the unfolded input it saves for the weight gradient).
TEST_F(EngineCapture, CountsTheConvolutionsFlopsPerOutputAndFilterTap) {
  // The example's first layer at batch 32: 1x28x28 in, 16 filters of 1x5x5, padding 2.
  constexpr std::uint64_t kFirstLayerFlops = 2ull * 32 * 16 * 28 * 28 * 1 * 5 * 5;
  for (const char* name : {"conv2d", "conv2d_backward_weight"}) {
    const auto spans = spans_named(*recorded_, name);
    ASSERT_FALSE(spans.empty()) << name;
    std::set<std::uint64_t> flops;
    for (const auto& span : spans) {
      const trace::SpanRecord record = recorded_->span_record(span.track, span.index);
      ASSERT_TRUE(record.op.has_value()) << name;
      flops.insert(record.op->flops);
    }
    EXPECT_TRUE(flops.contains(kFirstLayerFlops)) << name;
  }
}

TEST_F(EngineCapture, AttributesAllocationsToTheirOpAndPass) {
  std::size_t allocations = 0;
  std::size_t inside_pass_with_op = 0;
  for (const trace::Track& track : recorded_->tracks()) {
    for (std::size_t i = 0; i < track.memory().size(); ++i) {
      const trace::MemoryRecord event = track.memory().record(i);
      if (event.action != trace::MemoryAction::kAlloc) continue;
      ++allocations;
      EXPECT_GT(event.total_allocated, 0u);
      const std::string_view scope = recorded_->string(event.scope);
      if ((scope == "forward" || scope == "backward") &&
          !recorded_->string(event.owner_op).empty()) {
        ++inside_pass_with_op;
      }
    }
  }
  EXPECT_GT(allocations, 0u);
  EXPECT_GT(inside_pass_with_op, 0u);
}

TEST_F(EngineCapture, RecordsLoaderLoadsOnWorkerThreadsAndWaitsOnTheMainThread) {
  const auto loads = spans_named(*recorded_, "load batch");
  const auto waits = spans_named(*recorded_, "wait for batch");
  ASSERT_FALSE(loads.empty());
  ASSERT_FALSE(waits.empty());
  const auto steps = spans_named(*recorded_, "step 0");
  ASSERT_EQ(steps.size(), 1u);
  std::set<std::uint32_t> load_tracks;
  for (const auto& load : loads) {
    load_tracks.insert(load.track);
    EXPECT_EQ(recorded_->track(load.track).spans().category[load.index], Category::kDataLoaderLoad);
  }
  EXPECT_FALSE(load_tracks.contains(steps[0].track));
  EXPECT_EQ(waits[0].track, steps[0].track);
}

TEST_F(EngineCapture, NamesTheLoaderWorkerThreadsTracks) {
  std::set<std::string_view> load_track_names;
  for (const auto& load : spans_named(*recorded_, "load batch")) {
    load_track_names.insert(recorded_->string(recorded_->track(load.track).info().name));
  }
  // Workers claim batches as they free up, so under load one worker may load all three: every
  // load lies on a named worker track, but not necessarily on both.
  ASSERT_FALSE(load_track_names.empty());
  const std::set<std::string_view> worker_names{"loader 0", "loader 1"};
  for (const std::string_view name : load_track_names) {
    EXPECT_TRUE(worker_names.contains(name)) << name;
  }
}

TEST_F(EngineCapture, RecordsEveryOptimizerStep) {
  EXPECT_EQ(spans_named(*recorded_, "optimizer step").size(), std::size_t{kSteps});
  EXPECT_EQ(count_category(Category::kOptimizer), std::size_t{kSteps});
}

}  // namespace
}  // namespace tscope::profiler
