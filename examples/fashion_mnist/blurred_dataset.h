#pragma once
// A dataset that blurs every image `passes` times with a 3x3 box filter as it loads, the kind of
// per-sample decode and augmentation work that makes a data loader, not the model, the bottleneck.
// The example's --decode-passes plants that problem for the input-stall analysis.

#include <cstddef>

#include "tscope/engine/data/dataset.h"
#include "tscope/engine/data/labeled_batch.h"

namespace tscope::examples {

class BlurredDataset final : public engine::Dataset<engine::LabeledBatch> {
 public:
  // Reads `source`, which must outlive this dataset.
  BlurredDataset(const engine::Dataset<engine::LabeledBatch>& source, std::size_t passes)
      : source_(source), passes_(passes) {}

  std::size_t size() const override { return source_.size(); }
  engine::LabeledBatch load_batch(std::span<const std::size_t> indices) const override;

 private:
  const engine::Dataset<engine::LabeledBatch>& source_;
  std::size_t passes_;
};

}  // namespace tscope::examples
