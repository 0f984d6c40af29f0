// The CUDA backend's device plumbing: refusal with a reason where no device answers (this part
// runs everywhere), and on a device the caching allocator, pinned memory, copies between devices
// and moving a module.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "current_op.h"
#include "fragmented_cache.h"
#include "scratch_folder.h"
#include "tscope/analyzer/memory.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/data/data_loader.h"
#include "tscope/engine/data/dataset.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/memory_snapshot.h"
#include "tscope/engine/nn/linear.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/transfer.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::engine {
namespace {

constexpr std::size_t kMegabyte = std::size_t{1} << 20;
const Device kCuda = Device::cuda(0);

// Sample i is the image filled with i, labelled i.
class CountingImages final : public Dataset<LabeledBatch> {
 public:
  std::size_t size() const override { return 8; }
  LabeledBatch load_batch(std::span<const std::size_t> indices) const override {
    std::vector<float> pixels;
    std::vector<std::int64_t> labels;
    for (const std::size_t index : indices) {
      pixels.insert(pixels.end(), 4, static_cast<float>(index));
      labels.push_back(static_cast<std::int64_t>(index));
    }
    const auto count = static_cast<std::int64_t>(indices.size());
    return {from_vector(pixels, {count, 4}), from_vector(labels, {count})};
  }
};

TEST(CudaWithoutDevice, CudaTensorsAreRefusedWithTheReason) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device answers; this checks machines without one";
  EXPECT_EQ(cuda_device_count(), 0);
  EXPECT_FALSE(cuda_unavailable_reason().empty());
  try {
    empty({4}, {.device = kCuda});
    FAIL() << "a CUDA tensor was created without a device";
  } catch (const CudaUnavailable& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cuda:0"), std::string::npos);
    EXPECT_NE(message.find(cuda_unavailable_reason()), std::string::npos);
  }
}

TEST(CudaWithoutDevice, TheCpuPathKeepsWorking) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device answers; this checks machines without one";
  const Tensor x = from_vector(std::vector<float>{1.0f, 2.0f, 3.0f}, {3});
  EXPECT_THROW(x.to(kCuda), CudaUnavailable);
  EXPECT_THROW(pin_memory(x), CudaUnavailable);
  EXPECT_FALSE(is_pinned(x));
  EXPECT_EQ(x.to(Device::cpu()).impl(), x.impl());
  EXPECT_EQ(sum(mul(x, x)).item(), 14.0f);
}

TEST(CudaWithoutDevice, PinningLoaderReportsTheMissingDevice) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device answers; this checks machines without one";
  const CountingImages images;
  DataLoader<LabeledBatch> loader(images, {.batch_size = 4, .pin_memory = true});
  EXPECT_THROW(loader.begin(), CudaUnavailable);
}

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) {
      GTEST_SKIP() << "no CUDA device answers: " << cuda_unavailable_reason();
    }
  }
};

TEST_F(CudaDevice, CopiesRoundTripExactlyForBothDtypes) {
  Generator generator(std::random_device{}());
  const Tensor values = randn({1000}, generator);
  EXPECT_EQ(values.to(kCuda).to(Device::cpu()).to_vector<float>(), values.to_vector<float>());
  const Tensor labels = from_vector(std::vector<std::int64_t>{3, -1, 1LL << 40}, {3});
  EXPECT_EQ(labels.to(kCuda).to(Device::cpu()).to_vector<std::int64_t>(),
            labels.to_vector<std::int64_t>());
}

TEST_F(CudaDevice, ItemAndToVectorReadDeviceTensorsThroughTheHost) {
  const Tensor on_device = from_vector(std::vector<float>{1.5f, -2.0f}, {2}).to(kCuda);
  EXPECT_EQ(sum(on_device).item(), -0.5f);
  EXPECT_EQ(on_device.to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
}

TEST_F(CudaDevice, FreedTensorsReuseCachedDeviceMemory) {
  CachingAllocator& allocator = cuda_allocator(0);
  { const Tensor warm = empty({1024}, {.device = kCuda}); }
  const CachingAllocatorStats before = allocator.caching_stats();
  for (int i = 0; i < 10; ++i) {
    const Tensor scratch = empty({1024}, {.device = kCuda});
  }
  const CachingAllocatorStats after = allocator.caching_stats();
  EXPECT_EQ(after.segment_allocations, before.segment_allocations);
  EXPECT_EQ(after.allocation_count, before.allocation_count + 10);
}

TEST_F(CudaDevice, CapOnTheDeviceRaisesOutOfMemoryNamingTheOwner) {
  CachingAllocator& allocator = cuda_allocator(0);
  allocator.empty_cache();
  const std::optional<std::size_t> saved = allocator.capacity();
  allocator.set_capacity(allocator.caching_stats().reserved_bytes + 24 * kMegabyte);
  const Tensor held =
      zeros({static_cast<std::int64_t>(16 * kMegabyte / sizeof(float))}, {.device = kCuda});
  try {
    empty({static_cast<std::int64_t>(16 * kMegabyte / sizeof(float))}, {.device = kCuda});
    allocator.set_capacity(saved);
    FAIL() << "a request past the cap was served";
  } catch (const DeviceOutOfMemory& error) {
    allocator.set_capacity(saved);
    EXPECT_EQ(error.device(), kCuda);
    EXPECT_FALSE(error.snapshot().segments.empty());
    EXPECT_EQ(error.live_allocations().at(0).bytes, 16 * kMegabyte);
  }
}

TEST_F(CudaDevice, FragmentedDeviceOutOfMemoryIsReportedAsFragmentedWithTheRequestingOp) {
  const std::filesystem::path output = tscope::testing::scratch_path("cuda_fragmented.tsc");
  CachingAllocator& allocator = cuda_allocator(0);
  allocator.empty_cache();
  const std::optional<std::size_t> saved = allocator.capacity();
  allocator.set_capacity(allocator.caching_stats().reserved_bytes + 20 * kMegabyte);
  profiler::Session session({.output = output, .sample_process_counters = false});
  session.start();
  void* middle = testing::run_out_of_memory_in_fragmented_segment(allocator);
  EXPECT_NE(middle, nullptr) << "the 14 MiB request was served";
  if (middle != nullptr) allocator.deallocate(middle, 4 * kMegabyte);
  allocator.set_capacity(saved);
  session.stop();
  const trace::Trace recorded = trace::load_trace(output);
  std::filesystem::remove(output);

  const std::vector<analyzer::Finding> findings =
      analyzer::find_memory_pressure(analyzer::AnalysisContext(recorded, {}));
  ASSERT_EQ(findings.size(), 1u);
  const analyzer::Finding& oom = findings[0];
  EXPECT_EQ(oom.kind, "oom");
  EXPECT_EQ(oom.metric("fragmented"), 1) << oom.title;
  EXPECT_GE(oom.metric("largest_free_block_bytes"), 12.0 * kMegabyte);
  EXPECT_LT(oom.metric("largest_free_block_bytes"), 14.0 * kMegabyte);
  EXPECT_NE(oom.title.find("by conv2d (im2col)"), std::string::npos) << oom.title;
}

TEST_F(CudaDevice, PinnedBatchesCopyWithoutBlocking) {
  Generator generator(std::random_device{}());
  const LabeledBatch batch{randn({64, 784}, generator),
                           from_vector(std::vector<std::int64_t>(64, 7), {64})};
  const LabeledBatch pinned = pin_memory(batch);
  EXPECT_TRUE(is_pinned(pinned.inputs));
  EXPECT_TRUE(is_pinned(pinned.targets));
  EXPECT_FALSE(is_pinned(batch.inputs));
  const LabeledBatch on_device = to_device(pinned, kCuda, true);
  EXPECT_EQ(on_device.inputs.to(Device::cpu()).to_vector<float>(), batch.inputs.to_vector<float>());
  EXPECT_EQ(on_device.targets.to(Device::cpu()).to_vector<std::int64_t>(),
            batch.targets.to_vector<std::int64_t>());
}

TEST_F(CudaDevice, LoaderPinsEveryBatchOnItsWorkers) {
  const CountingImages images;
  DataLoader<LabeledBatch> loader(
      images, {.batch_size = 4, .shuffle = false, .num_workers = 2, .pin_memory = true});
  std::vector<std::int64_t> labels;
  for (const LabeledBatch& batch : loader) {
    EXPECT_TRUE(is_pinned(batch.inputs));
    const LabeledBatch on_device = to_device(batch, kCuda, true);
    for (const std::int64_t label : on_device.targets.to(Device::cpu()).to_vector<std::int64_t>()) {
      labels.push_back(label);
    }
  }
  EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(CudaDevice, MovingAModuleMovesTheParametersItsLayersHold) {
  Generator generator(1);
  nn::Linear layer(8, 4, generator);
  const std::vector<float> weights = layer.weight().to_vector<float>();
  to_device(layer, kCuda);
  EXPECT_EQ(layer.weight().device(), kCuda);
  EXPECT_EQ(layer.bias()->device(), kCuda);
  EXPECT_TRUE(layer.weight().requires_grad());
  EXPECT_EQ(layer.weight().to(Device::cpu()).to_vector<float>(), weights);
  EXPECT_EQ(layer(zeros({2, 8}, {.device = kCuda})).device(), kCuda);
}

}  // namespace
}  // namespace tscope::engine
