#pragma once
// Streams events into a native .tsc file chunk by chunk with bounded memory: events are buffered
// per track and kind and written as a compressed, checksummed chunk whenever a buffer fills, so a
// crash loses at most the unflushed tail. Not thread-safe: one thread (the profiler's background
// writer) owns it. The format is specified in docs/trace-format.md.

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/trace/trace.h"
#include "tscope/trace/trace_sink.h"

namespace tscope::trace {

namespace codec {
class ByteWriter;
}
namespace tsc {
enum class ChunkType : std::uint8_t;
}

struct TscWriterOptions {
  // Events buffered per track and kind before a chunk is written.
  std::uint32_t events_per_chunk = 65536;
  int zstd_level = 3;
  std::string source_format = "tsc";
};

class TscWriter final : public TraceSink {
 public:
  // Creates (truncates) `path` and writes the file header. Throws IoError.
  explicit TscWriter(const std::filesystem::path& path, const TscWriterOptions& options = {});
  // Closes the file if close() was not called; errors are swallowed here, call close() to see them.
  ~TscWriter() override;
  TscWriter(const TscWriter&) = delete;
  TscWriter& operator=(const TscWriter&) = delete;

  StringId intern(std::string_view text) override;
  std::uint32_t add_process(const Process& process) override;
  std::uint32_t add_track(const TrackInfo& track) override;
  EventRef add_span(std::uint32_t track, const SpanRecord& span) override;
  EventRef add_instant(std::uint32_t track, const InstantRecord& instant) override;
  EventRef add_counter_sample(std::uint32_t track, TimeNs time, double value) override;
  EventRef add_memory_event(std::uint32_t track, const MemoryRecord& event) override;
  void add_flow(const Flow& flow) override;
  void add_dropped_events(std::uint64_t count) override;
  void set_metadata_value(std::string_view key, std::string_view value) override;
  // Carries forward what a reader lost from the trace being rewritten (see TraceMetadata).
  void set_lost(std::uint64_t lost_bytes, std::uint64_t lost_records);

  // Writes every buffered event and the current metadata as chunks and flushes the file to the
  // OS, so they survive a crash of this process.
  void flush();
  // flush() and close the file. Further calls throw TraceError. Throws IoError.
  void close();

  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t chunks_written() const { return chunks_written_; }

 private:
  struct TrackBuffers;

  TrackBuffers& buffers_for(std::uint32_t track);
  void require_string(StringId id, const char* field) const;
  void require_args(const std::vector<Arg>& args) const;
  void require_ref(const EventRef& ref) const;
  void flush_spans(std::uint32_t track);
  void flush_instants(std::uint32_t track);
  void flush_counters(std::uint32_t track);
  void flush_memory(std::uint32_t track);
  void write_pending_definitions();
  // Writes a track's `count` buffered events of one kind as a chunk, column by column, leaving the
  // columns empty and `count` 0; nothing when there are none (their delta bases are then at 0).
  void write_event_chunk(tsc::ChunkType type, std::uint32_t track, std::uint32_t& count,
                         std::initializer_list<codec::ByteWriter*> columns);
  void write_metadata();
  void write_chunk(tsc::ChunkType type, const codec::ByteWriter& payload);
  void write_bytes(const std::uint8_t* bytes, std::size_t size);
  void check_open() const;

  std::filesystem::path path_;
  TscWriterOptions options_;
  int descriptor_ = -1;
  StringTable strings_;
  // Id 0, the empty string, is implicit in every reader's table.
  std::size_t strings_written_ = 1;
  std::vector<Process> processes_;
  std::size_t processes_written_ = 0;
  std::vector<TrackInfo> tracks_;
  std::size_t tracks_written_ = 0;
  std::vector<std::unique_ptr<TrackBuffers>> track_buffers_;
  std::vector<Flow> pending_flows_;
  TraceMetadata metadata_;
  std::vector<std::uint8_t> compressed_;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t chunks_written_ = 0;
};

// Writes a whole trace as .tsc (through TscWriter). Throws IoError.
void write_tsc(const Trace& trace, const std::filesystem::path& path,
               const TscWriterOptions& options = {});

}  // namespace tscope::trace
