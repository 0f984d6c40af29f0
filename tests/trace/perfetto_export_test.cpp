// The Perfetto protobuf export of every real trace in ../shared, decoded by a reader written
// from Perfetto's proto definitions and by protoc --decode_raw: what a trace processor needs to
// load it (descriptors before use, names interned before use, balanced and nested slices, one
// flow id per arrow) and that nothing the trace holds is lost on the way.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "perfetto_trace_decoder.h"
#include "scratch_folder.h"
#include "shared_trace.h"
#include "test_data.h"
#include "tscope/trace/chrome_json_writer.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/perfetto_writer.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::trace {
namespace {

using testing::PerfettoPacket;
using Type = testing::PerfettoEventType;

const char* const kRealTraces[] = {
    "kineto/hta_critical_path_alexnet_a100.json.gz",
    "kineto/hta_nccl_data_a100_rank0_of2.json.gz",
    "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz",
    "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz",
    "kineto/tracelens_mi210_gpu_only.json.gz",
    "multirank/sampled_rank-0.json.gz",
    "chrome/speedscope_chrome65_simple_timeline.json",
    "nsys/pipit_saxpy_mpi_cuda_perlmutter_a100.sqlite",
};

using tscope::testing::scratch_path;

std::filesystem::path real_trace_path(const std::string& relative) {
  return testing::shared_data_path("traces/" + relative);
}

// What the decoded packets say, checked against the rules a trace processor applies as it reads.
struct DecodedExport {
  std::map<std::uint64_t, testing::PerfettoTrackDescriptor> tracks;
  std::map<std::uint64_t, std::string> names;  // interned event names
  std::multiset<std::string> slice_names;
  std::size_t slices = 0;
  std::size_t instants = 0;
  std::size_t counter_values = 0;
  std::map<std::uint64_t, std::uint64_t> flow_starts;  // flow id -> track uuid of its source
  std::map<std::uint64_t, std::uint64_t> flow_ends;    // flow id -> track uuid of its target
};

DecodedExport check_packets(const std::vector<PerfettoPacket>& packets) {
  DecodedExport decoded;
  std::set<std::uint64_t> categories;
  std::set<std::uint64_t> annotation_names;
  std::set<std::uint64_t> annotation_values;
  // Per track, the stack of open slices' begin times, and the time of its last event.
  std::map<std::uint64_t, std::vector<std::uint64_t>> open;
  std::map<std::uint64_t, std::uint64_t> last_time;
  for (std::size_t index = 0; index < packets.size(); ++index) {
    const PerfettoPacket& packet = packets[index];
    SCOPED_TRACE("packet " + std::to_string(index));
    EXPECT_EQ(packet.sequence_id, 1u);
    // The first packet starts the sequence's interning state; every later one relies on it.
    EXPECT_EQ(packet.sequence_flags, index == 0 ? 1u : 2u);
    for (const auto& [table, entries] : packet.interned) {
      for (const auto& [iid, name] : entries) {
        EXPECT_NE(iid, 0u);
        if (table == 1) {
          EXPECT_TRUE(categories.insert(iid).second);
        } else if (table == 2) {
          EXPECT_TRUE(decoded.names.emplace(iid, name).second);
        } else if (table == 3) {
          EXPECT_TRUE(annotation_names.insert(iid).second);
        } else {
          EXPECT_EQ(table, 29u);
          EXPECT_TRUE(annotation_values.insert(iid).second);
        }
      }
    }
    if (packet.descriptor) {
      const testing::PerfettoTrackDescriptor& track = *packet.descriptor;
      EXPECT_NE(track.uuid, 0u);
      if (track.parent_uuid) {
        EXPECT_TRUE(decoded.tracks.contains(*track.parent_uuid));
      }
      EXPECT_TRUE(decoded.tracks.emplace(track.uuid, track).second) << "uuid " << track.uuid;
    }
    if (!packet.event) continue;
    const testing::PerfettoTrackEvent& event = *packet.event;
    EXPECT_TRUE(packet.timestamp.has_value());
    const std::uint64_t time = packet.timestamp.value_or(0);
    EXPECT_TRUE(decoded.tracks.contains(event.track_uuid)) << "track " << event.track_uuid;
    for (const std::uint64_t iid : event.category_iids)
      EXPECT_TRUE(categories.contains(iid));
    for (const std::uint64_t iid : event.annotation_name_iids)
      EXPECT_TRUE(annotation_names.contains(iid));
    for (const std::uint64_t iid : event.annotation_value_iids)
      EXPECT_TRUE(annotation_values.contains(iid));
    if (event.type == Type::kSliceBegin || event.type == Type::kInstant) {
      EXPECT_TRUE(decoded.names.contains(event.name_iid)) << "name iid " << event.name_iid;
    }
    for (const std::uint64_t flow : event.flow_ids)
      EXPECT_TRUE(decoded.flow_starts.emplace(flow, event.track_uuid).second) << "flow " << flow;
    for (const std::uint64_t flow : event.terminating_flow_ids)
      EXPECT_TRUE(decoded.flow_ends.emplace(flow, event.track_uuid).second) << "flow " << flow;
    const testing::PerfettoTrackDescriptor& track = decoded.tracks[event.track_uuid];
    if (event.type == Type::kCounter) {
      EXPECT_TRUE(track.counter);
      EXPECT_TRUE(event.counter_value.has_value());
      ++decoded.counter_values;
      continue;
    }
    EXPECT_FALSE(track.counter);
    // Slices and instants of one track come in time order, and every end closes the slice
    // begun last: what makes them nest on Perfetto's timeline.
    EXPECT_GE(time, last_time[event.track_uuid]);
    last_time[event.track_uuid] = time;
    if (event.type == Type::kSliceBegin) {
      open[event.track_uuid].push_back(time);
      decoded.slice_names.insert(decoded.names[event.name_iid]);
      ++decoded.slices;
    } else if (event.type == Type::kSliceEnd) {
      std::vector<std::uint64_t>& stack = open[event.track_uuid];
      EXPECT_FALSE(stack.empty());
      if (!stack.empty()) stack.pop_back();
    } else {
      EXPECT_EQ(event.type, Type::kInstant);
      ++decoded.instants;
    }
  }
  for (const auto& [track, stack] : open)
    EXPECT_TRUE(stack.empty()) << stack.size() << " slices left open on track " << track;
  return decoded;
}

std::multiset<std::string> span_names(const Trace& trace) {
  std::multiset<std::string> names;
  for (const Track& track : trace.tracks()) {
    for (const StringId name : track.spans().name)
      names.insert(std::string(trace.string(name)));
  }
  return names;
}

TEST(PerfettoExport, EveryRealTraceDecodesIntoNestedSlicesOnDescribedTracks) {
  std::size_t checked = 0;
  for (const char* relative : kRealTraces) {
    SCOPED_TRACE(relative);
    const std::filesystem::path path = real_trace_path(relative);
    if (!std::filesystem::exists(path)) {
      if (testing::test_inputs_required()) ADD_FAILURE() << path << " is missing";
      continue;
    }
    const Trace trace = load_trace(path);
    const std::filesystem::path out = scratch_path("real.pftrace");
    write_perfetto(trace, out);
    const DecodedExport decoded = check_packets(testing::decode_perfetto_trace(out));
    const TraceCounts counts = trace.counts();
    EXPECT_EQ(decoded.slices, counts.spans);
    EXPECT_EQ(decoded.slice_names, span_names(trace));
    EXPECT_EQ(decoded.instants, counts.instants);
    // Memory events become two samples: the allocator's allocated and reserved bytes.
    EXPECT_EQ(decoded.counter_values, counts.counter_samples + 2 * counts.memory_events);
    ++checked;
  }
  if (checked == 0) {
    if (testing::test_inputs_required()) FAIL() << "no trace of ../shared found";
    GTEST_SKIP() << "the real traces of ../shared are not installed";
  }
}

TEST(PerfettoExport, EveryFlowIsOneArrowFromAHostThreadToAGpuStream) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_critical_path_alexnet_a100.json.gz");
  ASSERT_FALSE(trace.flows().empty());
  const std::filesystem::path out = scratch_path("flows.pftrace");
  write_perfetto(trace, out);
  const DecodedExport decoded = check_packets(testing::decode_perfetto_trace(out));
  ASSERT_EQ(decoded.flow_starts.size(), trace.flows().size());
  ASSERT_EQ(decoded.flow_ends.size(), trace.flows().size());
  std::size_t launches = 0;
  for (const auto& [id, source] : decoded.flow_starts) {
    ASSERT_TRUE(decoded.flow_ends.contains(id)) << "flow " << id << " never ends";
    const Flow& flow = trace.flows().at(id - 1);
    if (flow.kind != FlowKind::kLaunchToKernel) continue;
    ++launches;
    // A launch starts on a thread track (a thread descriptor) and ends on a stream's track
    // (a named child of its device).
    EXPECT_TRUE(decoded.tracks.at(source).thread_tid.has_value());
    const testing::PerfettoTrackDescriptor& target = decoded.tracks.at(decoded.flow_ends.at(id));
    EXPECT_FALSE(target.thread_tid.has_value());
    EXPECT_TRUE(target.parent_uuid.has_value());
  }
  EXPECT_GT(launches, 0u);
}

TEST(PerfettoExport, ProtocDecodesTheExportAsAProtobufMessage) {
#ifdef TSCOPE_PROTOC
  const std::string protoc = TSCOPE_PROTOC;
#else
  const std::string protoc;
#endif
  if (protoc.empty()) {
    if (testing::test_inputs_required()) FAIL() << "protoc not found (scripts/install-deps.sh)";
    GTEST_SKIP() << "protoc (Debian's protobuf-compiler) is not installed";
  }
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_critical_path_alexnet_a100.json.gz");
  const std::filesystem::path out = scratch_path("protoc.pftrace");
  write_perfetto(trace, out);
  const testing::CommandResult result =
      testing::run_command(protoc + " --decode_raw < " + testing::quoted(out), "2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output.substr(0, 2000);
  // A kernel's name, interned once, reads back as text.
  const std::string kernel(trace.string(
      trace.track(0).spans().size() != 0 ? trace.track(0).spans().name.front() : kEmptyString));
  EXPECT_NE(result.output.find("  60 {"), std::string::npos);  // track descriptors
  EXPECT_NE(result.output.find("  11 {"), std::string::npos);  // track events
  EXPECT_NE(result.output.find('"' + kernel + '"'), std::string::npos) << kernel;
}

TEST(PerfettoExport, GzipPathHoldsTheSameTraceCompressed) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  const std::filesystem::path plain = scratch_path("plain.pftrace");
  const std::filesystem::path gzip = scratch_path("compressed.pftrace.gz");
  write_perfetto(trace, plain);
  write_perfetto(trace, gzip);
  EXPECT_LT(std::filesystem::file_size(gzip), std::filesystem::file_size(plain));
  EXPECT_EQ(testing::decode_perfetto_trace(gzip).size(),
            testing::decode_perfetto_trace(plain).size());
}

TEST(PerfettoExport, SmallerThanTheChromeJsonOfTheSameTrace) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const std::filesystem::path protobuf = scratch_path("size.pftrace");
  const std::filesystem::path json = scratch_path("size.json");
  write_perfetto(trace, protobuf);
  write_chrome_json(trace, json);
  EXPECT_LT(std::filesystem::file_size(protobuf) * 4, std::filesystem::file_size(json));
}

TEST(PerfettoExport, UnwritablePathIsAnIoError) {
  const Trace empty;
  EXPECT_THROW(write_perfetto(empty, "/nonexistent-folder/out.pftrace"), IoError);
}

TEST(PerfettoExport, RanksExportAsOneProcessEach) {
  const std::filesystem::path folder = testing::shared_data_path("traces/multirank");
  TSCOPE_REQUIRE_FILE(folder);
  const std::filesystem::path out = scratch_path("ranks.pftrace");
  const testing::CommandResult result = testing::run_tscope(
      "export --perfetto " + testing::quoted(out) + " " + testing::quoted(folder));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const DecodedExport decoded = check_packets(testing::decode_perfetto_trace(out));
  std::set<std::int64_t> rank_pids[2];
  for (const auto& [uuid, track] : decoded.tracks) {
    if (!track.process_pid) continue;
    for (int rank = 0; rank < 2; ++rank) {
      if (track.process_name.starts_with("rank " + std::to_string(rank)))
        rank_pids[rank].insert(*track.process_pid);
    }
  }
  ASSERT_FALSE(rank_pids[0].empty());
  ASSERT_FALSE(rank_pids[1].empty());
  for (const std::int64_t pid : rank_pids[0])
    EXPECT_FALSE(rank_pids[1].contains(pid));
}

TEST(PerfettoExport, ExportWithoutAnOutputIsRejected) {
  const testing::CommandResult result = testing::run_tscope(
      "export " + testing::quoted(testing::shared_data_path("traces/multirank")));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--perfetto"), std::string::npos);
}

}  // namespace
}  // namespace tscope::trace
