// Behaviour of the Fashion-MNIST dataset: the real splits, the collated batch, and the errors for
// files that do not belong together.

#include "tscope/engine/data/fashion_mnist.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/engine/data/data_file_error.h"

namespace tscope::engine {
namespace {

const std::filesystem::path kDirectory = tscope::testing::fashion_mnist_dir();

// Writes a gzip'd IDX file of unsigned bytes.
void write_idx(const std::filesystem::path& path, const std::vector<std::uint32_t>& dims,
               const std::vector<std::uint8_t>& values) {
  std::vector<std::uint8_t> bytes{0, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
  for (const auto dim : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      bytes.push_back(static_cast<std::uint8_t>(dim >> shift));
    }
  }
  bytes.insert(bytes.end(), values.begin(), values.end());
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
}

// A folder holding a tiny training split: `images` images and the given labels.
std::filesystem::path tiny_split(const std::string& name, std::uint32_t images,
                                 const std::vector<std::uint8_t>& labels) {
  const auto directory = tscope::testing::scratch_path("tscope_fmnist_" + name);
  std::filesystem::create_directories(directory);
  write_idx(directory / "train-images-idx3-ubyte.gz", {images, 28, 28},
            std::vector<std::uint8_t>(std::size_t{images} * 28 * 28, 255));
  write_idx(directory / "train-labels-idx1-ubyte.gz", {static_cast<std::uint32_t>(labels.size())},
            labels);
  return directory;
}

TEST(FashionMnist, RealSplitsHold60000And10000Images) {
  TSCOPE_REQUIRE_FILE(kDirectory / "t10k-images-idx3-ubyte.gz");
  EXPECT_EQ(FashionMnist(kDirectory, FashionMnistSplit::kTrain).size(), 60000u);
  EXPECT_EQ(FashionMnist(kDirectory, FashionMnistSplit::kTest).size(), 10000u);
}

TEST(FashionMnist, EveryClassHasAThousandTestImages) {
  TSCOPE_REQUIRE_FILE(kDirectory / "t10k-labels-idx1-ubyte.gz");
  const FashionMnist test_set(kDirectory, FashionMnistSplit::kTest);
  std::array<int, 10> counts{};
  for (std::size_t i = 0; i < test_set.size(); ++i) {
    ++counts.at(test_set.label(i));
  }
  for (const int count : counts) {
    EXPECT_EQ(count, 1000);
  }
}

TEST(FashionMnist, BatchHoldsNormalisedImagesAndLabelsInIndexOrder) {
  TSCOPE_REQUIRE_FILE(kDirectory / "t10k-images-idx3-ubyte.gz");
  const FashionMnist test_set(kDirectory, FashionMnistSplit::kTest);
  const std::vector<std::size_t> indices{7, 0, 9999};
  const LabeledBatch batch = test_set.load_batch(indices);
  ASSERT_EQ(batch.inputs.shape(), (Shape{3, 1, 28, 28}));
  ASSERT_EQ(batch.targets.shape(), (Shape{3}));
  EXPECT_EQ(batch.targets.dtype(), DType::kInt64);
  const auto targets = batch.targets.to_vector<std::int64_t>();
  const auto inputs = batch.inputs.to_vector<float>();
  for (std::size_t row = 0; row < indices.size(); ++row) {
    EXPECT_EQ(targets[row], test_set.label(indices[row]));
    const auto pixels = test_set.image(indices[row]);
    for (const std::size_t i : {0u, 300u, 783u}) {
      const float expected =
          (pixels[i] / 255.0f - FashionMnist::kPixelMean) / FashionMnist::kPixelStd;
      EXPECT_FLOAT_EQ(inputs[row * 784 + i], expected);
    }
  }
}

TEST(FashionMnist, MissingLabelsFileIsNamed) {
  const auto directory = tiny_split("missing_labels", 2, {1, 2});
  std::filesystem::remove(directory / "train-labels-idx1-ubyte.gz");
  try {
    [[maybe_unused]] const FashionMnist split(directory, FashionMnistSplit::kTrain);
    FAIL() << "no error for a missing labels file";
  } catch (const DataFileError& error) {
    EXPECT_EQ(error.path(), directory / "train-labels-idx1-ubyte.gz");
  }
}

TEST(FashionMnist, LabelCountDifferentFromImageCountIsReported) {
  const auto directory = tiny_split("count", 3, {1, 2});
  try {
    [[maybe_unused]] const FashionMnist split(directory, FashionMnistSplit::kTrain);
    FAIL() << "no error for 2 labels and 3 images";
  } catch (const DataFileError& error) {
    EXPECT_NE(std::string(error.what()).find("2 labels for 3 images"), std::string::npos)
        << error.what();
  }
}

TEST(FashionMnist, LabelOutsideTheTenClassesIsReported) {
  const auto directory = tiny_split("label", 2, {3, 12});
  try {
    [[maybe_unused]] const FashionMnist split(directory, FashionMnistSplit::kTrain);
    FAIL() << "no error for label 12";
  } catch (const DataFileError& error) {
    EXPECT_EQ(error.offset(), 9u);
    EXPECT_NE(std::string(error.what()).find("label 12 of sample 1"), std::string::npos)
        << error.what();
  }
}

TEST(FashionMnist, ImagesThatAreNot28By28AreReported) {
  const auto directory = tiny_split("shape", 1, {0});
  write_idx(directory / "train-images-idx3-ubyte.gz", {1, 32, 32},
            std::vector<std::uint8_t>(std::size_t{32} * 32, 0));
  EXPECT_THROW(FashionMnist(directory, FashionMnistSplit::kTrain), DataFileError);
}

}  // namespace
}  // namespace tscope::engine
