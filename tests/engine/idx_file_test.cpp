// Behaviour of the IDX reader on the real Fashion-MNIST files and on small broken files written
// here: each problem is a DataFileError that names the file and what is wrong.

#include "tscope/engine/data/idx_file.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/engine/data/data_file_error.h"

namespace tscope::engine {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::filesystem::path temp_file(const std::string& name) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return tscope::testing::scratch_path(std::string("tscope_idx_") + test->name() + "_" + name);
}

std::filesystem::path write_plain(const std::string& name, const Bytes& bytes) {
  const auto path = temp_file(name);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::filesystem::path write_gzip(const std::string& name, const Bytes& bytes) {
  const auto path = temp_file(name);
  gzFile file = gzopen(path.c_str(), "wb");
  EXPECT_NE(file, nullptr);
  EXPECT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(file);
  return path;
}

Bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// An IDX file of unsigned bytes with the given dimensions, data counting up from 0.
Bytes idx_bytes(const std::vector<std::uint32_t>& dims, std::size_t data_size) {
  Bytes bytes{0, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
  for (const auto dim : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      bytes.push_back(static_cast<std::uint8_t>(dim >> shift));
    }
  }
  for (std::size_t i = 0; i < data_size; ++i) {
    bytes.push_back(static_cast<std::uint8_t>(i));
  }
  return bytes;
}

// Runs the reader and returns the message of the DataFileError it must throw.
std::string error_reading(const std::filesystem::path& path) {
  try {
    read_idx_file(path);
  } catch (const DataFileError& error) {
    EXPECT_EQ(error.path(), path);
    return error.what();
  }
  ADD_FAILURE() << "no DataFileError for " << path;
  return "";
}

TEST(IdxFile, ReadsTheRealFashionMnistTrainingImages) {
  const auto path = tscope::testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz";
  TSCOPE_REQUIRE_FILE(path);
  const IdxArray images = read_idx_file(path);
  EXPECT_EQ(images.dims, (std::vector<std::uint32_t>{60000, 28, 28}));
  EXPECT_EQ(images.values.size(), 60000u * 28u * 28u);
}

TEST(IdxFile, ReadsGzipAndPlainFilesAlike) {
  const Bytes bytes = idx_bytes({2, 3}, 6);
  const IdxArray from_gzip = read_idx_file(write_gzip("a.gz", bytes));
  const IdxArray from_plain = read_idx_file(write_plain("a", bytes));
  EXPECT_EQ(from_gzip.dims, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(from_gzip.values, (Bytes{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(from_plain.values, from_gzip.values);
}

TEST(IdxFile, MissingFileIsNamed) {
  const auto path = temp_file("absent.gz");
  EXPECT_NE(error_reading(path).find(path.string() + ": at byte 0: file not found"),
            std::string::npos);
}

TEST(IdxFile, WrongMagicNumberIsReported) {
  Bytes bytes = idx_bytes({4}, 4);
  bytes[0] = 0x1f;
  EXPECT_NE(error_reading(write_gzip("magic.gz", bytes)).find("not an IDX file"),
            std::string::npos);
}

TEST(IdxFile, NonByteElementTypeIsReported) {
  Bytes bytes = idx_bytes({4}, 4);
  bytes[2] = 0x0d;  // float
  EXPECT_NE(error_reading(write_gzip("type.gz", bytes)).find("unsupported IDX element type 13"),
            std::string::npos);
}

TEST(IdxFile, ZeroDimensionIsReported) {
  EXPECT_NE(error_reading(write_gzip("zero.gz", idx_bytes({3, 0}, 0))).find("dimension 1 is zero"),
            std::string::npos);
}

TEST(IdxFile, HeaderCutShortIsReported) {
  Bytes bytes = idx_bytes({60000, 28, 28}, 0);
  bytes.resize(10);
  EXPECT_NE(error_reading(write_gzip("header.gz", bytes)).find("file ends inside the dimension"),
            std::string::npos);
}

TEST(IdxFile, DataShorterThanDeclaredIsReported) {
  const std::string message = error_reading(write_gzip("short.gz", idx_bytes({10, 10}, 50)));
  EXPECT_NE(message.find("header declares 100 data bytes"), std::string::npos) << message;
}

TEST(IdxFile, OversizedDeclarationFailsWithoutAllocatingIt) {
  const std::string message =
      error_reading(write_gzip("huge.gz", idx_bytes({65535, 65535, 65535}, 16)));
  EXPECT_NE(message.find("declared size exceeds"), std::string::npos) << message;
}

TEST(IdxFile, BytesAfterTheDataAreReported) {
  const std::string message = error_reading(write_gzip("trailing.gz", idx_bytes({2, 2}, 5)));
  EXPECT_NE(message.find("at byte 16: unexpected bytes after the declared data"), std::string::npos)
      << message;
}

TEST(IdxFile, TruncatedGzipStreamIsReported) {
  const Bytes compressed = read_bytes(write_gzip("full.gz", idx_bytes({100, 100}, 10000)));
  Bytes cut(compressed.begin(), compressed.begin() + static_cast<long>(compressed.size() / 2));
  const std::string message = error_reading(write_plain("cut.gz", cut));
  EXPECT_NE(message.find("cut.gz"), std::string::npos) << message;
}

TEST(IdxFile, CorruptGzipDataIsReported) {
  Bytes compressed = read_bytes(write_gzip("full.gz", idx_bytes({100, 100}, 10000)));
  for (std::size_t i = 20; i < compressed.size() - 8; i += 7) {
    compressed[i] ^= 0x5a;
  }
  const std::string message = error_reading(write_plain("corrupt.gz", compressed));
  EXPECT_NE(message.find("corrupt gzip stream"), std::string::npos) << message;
}

}  // namespace
}  // namespace tscope::engine
