#pragma once
// The typed error every dataset file reader throws: it names the file, the byte offset in the
// decoded stream where the problem was found, and what is wrong, so a user can fix the input.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace tscope::engine {

class DataFileError : public std::runtime_error {
 public:
  DataFileError(std::filesystem::path path, std::uint64_t offset, const std::string& problem);

  const std::filesystem::path& path() const { return path_; }
  std::uint64_t offset() const { return offset_; }

 private:
  std::filesystem::path path_;
  std::uint64_t offset_;
};

}  // namespace tscope::engine
