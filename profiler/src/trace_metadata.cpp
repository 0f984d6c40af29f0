#include "tscope/profiler/trace_metadata.h"

#include <atomic>
#include <mutex>

#include "process_metadata.h"

namespace tscope::profiler {
namespace {

std::mutex metadata_mutex;
ProcessMetadata& stored_metadata() {
  static ProcessMetadata metadata;
  return metadata;
}
// Read without the lock by the writer thread at every flush.
std::atomic<std::uint64_t> metadata_version{0};

}  // namespace

void set_trace_metadata(std::string_view key, std::string_view value) {
  const std::lock_guard lock(metadata_mutex);
  ProcessMetadata& metadata = stored_metadata();
  metadata.values.insert_or_assign(std::string(key), std::string(value));
  metadata.version = metadata_version.fetch_add(1, std::memory_order_release) + 1;
}

std::uint64_t process_metadata_version() {
  return metadata_version.load(std::memory_order_acquire);
}

ProcessMetadata process_metadata() {
  const std::lock_guard lock(metadata_mutex);
  return stored_metadata();
}

}  // namespace tscope::profiler
