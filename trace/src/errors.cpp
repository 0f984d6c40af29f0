#include "tscope/trace/errors.h"

namespace tscope::trace {

IoError::IoError(const std::filesystem::path& path, const std::string& what)
    : TraceError(path.string() + ": " + what), path_(path) {}

FormatError::FormatError(const std::filesystem::path& path, std::uint64_t offset,
                         const std::string& what)
    : TraceError(path.string() + ": at byte " + std::to_string(offset) + ": " + what),
      path_(path),
      offset_(offset) {}

}  // namespace tscope::trace
