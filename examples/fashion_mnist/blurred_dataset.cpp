#include "blurred_dataset.h"

#include <algorithm>
#include <vector>

namespace tscope::examples {
namespace {

// One pass of a 3x3 box blur over a height x width image, edges clamped.
void box_blur(const float* in, float* out, std::int64_t height, std::int64_t width) {
  for (std::int64_t y = 0; y < height; ++y) {
    for (std::int64_t x = 0; x < width; ++x) {
      float total = 0.0f;
      for (std::int64_t dy = -1; dy <= 1; ++dy) {
        const std::int64_t row = std::clamp<std::int64_t>(y + dy, 0, height - 1);
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
          total += in[row * width + std::clamp<std::int64_t>(x + dx, 0, width - 1)];
        }
      }
      out[y * width + x] = total / 9.0f;
    }
  }
}

}  // namespace

engine::LabeledBatch BlurredDataset::load_batch(std::span<const std::size_t> indices) const {
  engine::LabeledBatch batch = source_.load_batch(indices);
  if (passes_ == 0 || batch.inputs.numel() == 0) return batch;
  const std::int64_t height = batch.inputs.size(-2);
  const std::int64_t width = batch.inputs.size(-1);
  const std::int64_t pixels = height * width;
  const std::int64_t images = batch.inputs.numel() / pixels;
  float* data = batch.inputs.data<float>();
  std::vector<float> scratch(static_cast<std::size_t>(pixels));
  for (std::int64_t image = 0; image < images; ++image) {
    float* pixels_of_image = data + image * pixels;
    for (std::size_t pass = 0; pass < passes_; ++pass) {
      box_blur(pixels_of_image, scratch.data(), height, width);
      std::copy(scratch.begin(), scratch.end(), pixels_of_image);
    }
  }
  return batch;
}

}  // namespace tscope::examples
