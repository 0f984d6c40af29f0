#pragma once
// A protobuf wire-format reader for the tests of the Perfetto export, written from Perfetto's
// proto definitions (trace.proto, trace_packet.proto, interned_data.proto, track_event/*.proto)
// independently of the writer's own field table, so that a wrong field number or wire type in
// the writer shows up as a decoding failure or a missing field here.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tscope::testing {

struct PerfettoTrackDescriptor {
  std::uint64_t uuid = 0;
  std::optional<std::uint64_t> parent_uuid;
  std::string name;
  std::optional<std::int64_t> process_pid;
  std::string process_name;
  std::optional<std::int64_t> thread_pid;
  std::optional<std::int64_t> thread_tid;
  bool counter = false;
};

// TrackEvent.Type (track_event.proto); a value outside the proto's list is kept as it came.
enum class PerfettoEventType : std::uint64_t {
  kSliceBegin = 1,
  kSliceEnd = 2,
  kInstant = 3,
  kCounter = 4
};

struct PerfettoTrackEvent {
  PerfettoEventType type{};  // TYPE_UNSPECIFIED when absent
  std::uint64_t track_uuid = 0;
  std::uint64_t name_iid = 0;
  std::vector<std::uint64_t> category_iids;
  std::vector<std::uint64_t> flow_ids;
  std::vector<std::uint64_t> terminating_flow_ids;
  std::vector<std::uint64_t> annotation_name_iids;
  std::vector<std::uint64_t> annotation_value_iids;  // interned string values
  std::optional<double> counter_value;               // counter_value or double_counter_value
};

struct PerfettoPacket {
  std::optional<std::uint64_t> timestamp;
  std::uint64_t sequence_id = 0;
  std::uint64_t sequence_flags = 0;
  // Interned entries by table (1 categories, 2 event names, 3 debug annotation names, 29 debug
  // annotation string values): iid, text.
  std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, std::string>>> interned;
  std::optional<PerfettoTrackDescriptor> descriptor;
  std::optional<PerfettoTrackEvent> event;
};

// Decodes a whole Trace message (a .pftrace file, or its gzip). Throws std::runtime_error naming
// the offset on malformed input.
std::vector<PerfettoPacket> decode_perfetto_trace(const std::filesystem::path& path);

}  // namespace tscope::testing
