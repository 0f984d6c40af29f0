#pragma once
// The Fashion-MNIST dataset (Zalando: 28x28 grey images of clothing, 10 classes) read from the
// IDX .gz files that the dataset-fashion-mnist Debian package installs.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "tscope/engine/data/dataset.h"
#include "tscope/engine/data/labeled_batch.h"

namespace tscope::engine {

enum class FashionMnistSplit { kTrain, kTest };

class FashionMnist : public Dataset<LabeledBatch> {
 public:
  static constexpr std::int64_t kImageSide = 28;
  static constexpr std::int64_t kClassCount = 10;
  // Pixel statistics of the training split, used to normalise inputs to zero mean, unit std.
  static constexpr float kPixelMean = 0.2860f;
  static constexpr float kPixelStd = 0.3530f;

  static constexpr std::string_view kDefaultDirectory = "/usr/share/datasets/fashion-mnist";

  // Reads <directory>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz. Throws DataFileError
  // naming the file when one is missing or corrupt, or when images and labels disagree.
  FashionMnist(const std::filesystem::path& directory, FashionMnistSplit split);

  std::size_t size() const override { return labels_.size(); }

  // Inputs float32 [N, 1, 28, 28], normalised; targets int64 [N].
  LabeledBatch load_batch(std::span<const std::size_t> indices) const override;

  std::span<const std::uint8_t> image(std::size_t index) const;
  std::uint8_t label(std::size_t index) const { return labels_.at(index); }

 private:
  std::vector<std::uint8_t> pixels_;
  std::vector<std::uint8_t> labels_;
};

}  // namespace tscope::engine
