#include "tscope/trace/errors.h"

namespace tscope::trace {

IoError::IoError(const std::filesystem::path& path, const std::string& what)
    : TraceError(path.string() + ": " + what), path_(path) {}

FormatError::FormatError(const std::filesystem::path& path, std::uint64_t offset,
                         const std::string& what)
    : TraceError(path.string() + ": at byte " + std::to_string(offset) + ": " + what),
      path_(path),
      offset_(offset) {}

FormatError out_of_memory_reading(const std::filesystem::path& path, std::uint64_t offset) {
  return FormatError(path, offset,
                     "out of memory reading the trace: its events need more memory than the "
                     "process may use");
}

}  // namespace tscope::trace
