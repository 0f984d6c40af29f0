#include "tscope/engine/data/fashion_mnist.h"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "tscope/engine/data/data_file_error.h"
#include "tscope/engine/data/idx_file.h"
#include "tscope/engine/factories.h"

namespace tscope::engine {
namespace {

constexpr std::size_t kPixelsPerImage = FashionMnist::kImageSide * FashionMnist::kImageSide;
// Offset of the first dimension in an IDX header (after the 4-byte magic number).
constexpr std::uint64_t kFirstDimOffset = 4;

std::string dims_to_string(const std::vector<std::uint32_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(dims[i]);
  }
  return text + "]";
}

// 256 entries so that normalising a pixel is one table lookup.
std::array<float, 256> normalised_pixel_values() {
  std::array<float, 256> table{};
  for (std::size_t value = 0; value < table.size(); ++value) {
    table[value] =
        (static_cast<float>(value) / 255.0f - FashionMnist::kPixelMean) / FashionMnist::kPixelStd;
  }
  return table;
}

}  // namespace

FashionMnist::FashionMnist(const std::filesystem::path& directory, FashionMnistSplit split) {
  const std::string prefix = split == FashionMnistSplit::kTrain ? "train" : "t10k";
  const auto images_path = directory / (prefix + "-images-idx3-ubyte.gz");
  const auto labels_path = directory / (prefix + "-labels-idx1-ubyte.gz");

  IdxArray images = read_idx_file(images_path);
  if (images.dims.size() != 3 || images.dims[1] != kImageSide || images.dims[2] != kImageSide) {
    throw DataFileError(
        images_path, kFirstDimOffset,
        "expected images of shape [N, 28, 28], found " + dims_to_string(images.dims));
  }
  IdxArray labels = read_idx_file(labels_path);
  if (labels.dims.size() != 1) {
    throw DataFileError(labels_path, kFirstDimOffset,
                        "expected labels of shape [N], found " + dims_to_string(labels.dims));
  }
  if (labels.dims[0] != images.dims[0]) {
    throw DataFileError(labels_path, kFirstDimOffset,
                        std::to_string(labels.dims[0]) + " labels for " +
                            std::to_string(images.dims[0]) + " images in " + images_path.string());
  }
  // The label data starts after the magic number and the one dimension.
  constexpr std::uint64_t kLabelDataOffset = kFirstDimOffset + 4;
  for (std::size_t i = 0; i < labels.values.size(); ++i) {
    if (labels.values[i] >= kClassCount) {
      throw DataFileError(labels_path, kLabelDataOffset + i,
                          "label " + std::to_string(labels.values[i]) + " of sample " +
                              std::to_string(i) + " is not a class in 0..9");
    }
  }
  pixels_ = std::move(images.values);
  labels_ = std::move(labels.values);
}

std::span<const std::uint8_t> FashionMnist::image(std::size_t index) const {
  if (index >= size()) {
    throw std::out_of_range("Fashion-MNIST: sample " + std::to_string(index) + " of " +
                            std::to_string(size()));
  }
  return std::span<const std::uint8_t>(pixels_).subspan(index * kPixelsPerImage, kPixelsPerImage);
}

LabeledBatch FashionMnist::load_batch(std::span<const std::size_t> indices) const {
  static const std::array<float, 256> kNormalised = normalised_pixel_values();
  const auto count = static_cast<std::int64_t>(indices.size());
  LabeledBatch batch{empty({count, 1, kImageSide, kImageSide}),
                     empty({count}, {.dtype = DType::kInt64})};
  float* inputs = batch.inputs.data<float>();
  std::int64_t* targets = batch.targets.data<std::int64_t>();
  for (std::size_t row = 0; row < indices.size(); ++row) {
    const auto pixels = image(indices[row]);
    float* destination = inputs + row * kPixelsPerImage;
    for (std::size_t i = 0; i < kPixelsPerImage; ++i) {
      destination[i] = kNormalised[pixels[i]];
    }
    targets[row] = labels_[indices[row]];
  }
  return batch;
}

}  // namespace tscope::engine
