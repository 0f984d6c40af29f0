#pragma once
// The bytes of a .tsc input as its reader asks for them, a chunk at a time: bytes already in
// memory, or a file read into one reused buffer, so that reading a file holds one chunk of it
// rather than the whole file.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

namespace tscope::trace {

class TscInput {
 public:
  virtual ~TscInput() = default;
  virtual std::uint64_t size() const = 0;
  // The `length` bytes at `offset`, which lie within size(); valid until the next call.
  virtual std::span<const std::uint8_t> bytes_at(std::uint64_t offset, std::size_t length) = 0;
};

class TscBytesInput final : public TscInput {
 public:
  explicit TscBytesInput(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::uint64_t size() const override { return bytes_.size(); }
  std::span<const std::uint8_t> bytes_at(std::uint64_t offset, std::size_t length) override {
    return bytes_.subspan(static_cast<std::size_t>(offset), length);
  }

 private:
  std::span<const std::uint8_t> bytes_;
};

// Throws IoError when the file cannot be opened or read.
class TscFileInput final : public TscInput {
 public:
  explicit TscFileInput(const std::filesystem::path& path);
  std::uint64_t size() const override { return size_; }
  std::span<const std::uint8_t> bytes_at(std::uint64_t offset, std::size_t length) override;

 private:
  std::filesystem::path path_;
  std::ifstream file_;
  std::uint64_t size_ = 0;
  std::vector<std::uint8_t> buffer_;
};

}  // namespace tscope::trace
