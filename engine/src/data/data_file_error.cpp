#include "tscope/engine/data/data_file_error.h"

namespace tscope::engine {

DataFileError::DataFileError(std::filesystem::path path, std::uint64_t offset,
                             const std::string& problem)
    : std::runtime_error(path.string() + ": at byte " + std::to_string(offset) + ": " + problem),
      path_(std::move(path)),
      offset_(offset) {}

}  // namespace tscope::engine
