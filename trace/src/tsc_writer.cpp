#include "tscope/trace/tsc_writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "byte_codec.h"
#include "tsc_layout.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/tsc_reader.h"

namespace tscope::trace {

using codec::ByteWriter;
using tsc::ChunkType;

// Events of one track, already encoded column by column; deltas restart in every chunk so each
// chunk decodes on its own.
struct TscWriter::TrackBuffers {
  struct Spans {
    ByteWriter starts, durations, names, categories, flags, details;
    TimeNs last_start = 0;
    std::uint32_t count = 0;
  };
  struct Instants {
    ByteWriter times, names, categories, args;
    TimeNs last_time = 0;
    std::uint32_t count = 0;
  };
  struct Counters {
    ByteWriter times, values;
    TimeNs last_time = 0;
    std::uint32_t count = 0;
  };
  struct Memory {
    ByteWriter times, actions, addresses, bytes, devices, owners, scopes, allocated, reserved;
    TimeNs last_time = 0;
    std::int64_t last_address = 0;
    std::int64_t last_allocated = 0;
    std::int64_t last_reserved = 0;
    std::uint32_t count = 0;
  };

  Spans spans;
  Instants instants;
  Counters counters;
  Memory memory;
  // Events accepted so far per kind, across chunks: the index part of the refs handed out.
  std::array<std::uint32_t, 4> accepted{};
};

namespace {

// Appends `value` as its zigzag delta from `base` and makes it the base of the next one.
void append_delta(ByteWriter& column, std::int64_t value, std::int64_t& base) {
  column.svarint(codec::wrapping_delta(value, base));
  base = value;
}

void encode_args(ByteWriter& out, const std::vector<Arg>& args) {
  out.varint(args.size());
  for (const Arg& arg : args) {
    out.varint(arg.key);
    if (const auto* integer = std::get_if<std::int64_t>(&arg.value)) {
      out.u8(tsc::kArgInt);
      out.svarint(*integer);
    } else if (const auto* real = std::get_if<double>(&arg.value)) {
      out.u8(tsc::kArgDouble);
      out.f64(*real);
    } else {
      out.u8(tsc::kArgString);
      out.varint(std::get<StringArg>(arg.value).id);
    }
  }
}

void encode_kernel(ByteWriter& out, const KernelInfo& kernel) {
  for (const std::uint32_t extent : kernel.grid)
    out.varint(extent);
  for (const std::uint32_t extent : kernel.block)
    out.varint(extent);
  out.varint(kernel.registers_per_thread);
  out.varint(kernel.static_shared_bytes);
  out.varint(kernel.dynamic_shared_bytes);
  out.svarint(kernel.device);
  out.svarint(kernel.stream);
}

void encode_copy(ByteWriter& out, const CopyInfo& copy) {
  out.varint(copy.bytes);
  out.u8(static_cast<std::uint8_t>(copy.direction));
  out.u8(static_cast<std::uint8_t>(copy.source));
  out.u8(static_cast<std::uint8_t>(copy.destination));
}

void encode_ids(ByteWriter& out, const std::vector<std::uint64_t>& ids) {
  out.varint(ids.size());
  for (const std::uint64_t id : ids)
    out.varint(id);
}

void encode_op(ByteWriter& out, const OpInfo& op) {
  out.varint(op.input_shapes.size());
  for (const auto& shape : op.input_shapes) {
    out.varint(shape.size());
    for (const std::int64_t extent : shape)
      out.svarint(extent);
  }
  out.varint(op.flops);
  out.varint(op.bytes_read);
  out.varint(op.bytes_written);
  encode_ids(out, op.tensors_read);
  encode_ids(out, op.tensors_written);
}

void encode_ref(ByteWriter& out, const EventRef& ref) {
  out.u8(static_cast<std::uint8_t>(ref.kind));
  out.varint(ref.track);
  out.varint(ref.index);
}

// Large operator details or arguments close a chunk early so it stays well under the format's
// chunk size limit.
constexpr std::size_t kFlushBytes = 16u << 20;

std::uint32_t take_index(std::uint32_t& accepted) {
  if (accepted == std::numeric_limits<std::uint32_t>::max()) {
    throw TraceError("more than 2^32 - 1 events of one kind on one track");
  }
  return accepted++;
}

}  // namespace

TscWriter::TscWriter(const std::filesystem::path& path, const TscWriterOptions& options)
    : path_(path), options_(options) {
  if (options_.events_per_chunk == 0) throw TraceError("events_per_chunk must be positive");
  descriptor_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (descriptor_ < 0) throw IoError(path, std::string("cannot create: ") + std::strerror(errno));
  metadata_.source_format = options_.source_format;
  std::uint8_t header[tsc::kFileHeaderSize] = {};
  std::memcpy(header, kTscMagic, sizeof kTscMagic);
  tsc::store_u32(header + 8, kTscVersion);
  try {
    write_bytes(header, sizeof header);
  } catch (...) {
    ::close(descriptor_);
    throw;
  }
}

TscWriter::~TscWriter() {
  if (descriptor_ < 0) return;
  try {
    close();
  } catch (const std::exception&) {
    // A destructor cannot report; callers who care call close() themselves.
    if (descriptor_ >= 0) ::close(std::exchange(descriptor_, -1));
  }
}

void TscWriter::check_open() const {
  if (descriptor_ < 0) throw TraceError(path_.string() + ": writer already closed");
}

void TscWriter::write_bytes(const std::uint8_t* bytes, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(descriptor_, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      // A failed writer writes no more (not even from its destructor): the file keeps what was
      // written, and a full file raises SIGXFSZ on every further write.
      ::close(std::exchange(descriptor_, -1));
      throw IoError(path_, "write failed at byte " + std::to_string(bytes_written_) + ": " +
                               std::strerror(error));
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
    bytes_written_ += static_cast<std::uint64_t>(written);
  }
}

StringId TscWriter::intern(std::string_view text) {
  return strings_.intern(text);
}

void TscWriter::require_string(StringId id, const char* field) const {
  if (id >= strings_.size()) {
    throw TraceError(std::string(field) + " names string " + std::to_string(id) + " but only " +
                     std::to_string(strings_.size()) + " strings are interned");
  }
}

std::uint32_t TscWriter::add_process(const Process& process) {
  check_open();
  require_string(process.name, "process name");
  require_string(process.host, "process host");
  processes_.push_back(process);
  return static_cast<std::uint32_t>(processes_.size() - 1);
}

std::uint32_t TscWriter::add_track(const TrackInfo& track) {
  check_open();
  if (track.process >= processes_.size()) {
    throw TraceError("track names process " + std::to_string(track.process) + " but only " +
                     std::to_string(processes_.size()) + " processes exist");
  }
  if (tracks_.size() > EventRef::kMaxTrack) throw TraceError("too many tracks");
  require_string(track.name, "track name");
  tracks_.push_back(track);
  track_buffers_.push_back(std::make_unique<TrackBuffers>());
  return static_cast<std::uint32_t>(tracks_.size() - 1);
}

TscWriter::TrackBuffers& TscWriter::buffers_for(std::uint32_t track) {
  check_open();
  if (track >= track_buffers_.size()) {
    throw TraceError("event names track " + std::to_string(track) + " but only " +
                     std::to_string(track_buffers_.size()) + " tracks exist");
  }
  return *track_buffers_[track];
}

void TscWriter::require_args(const std::vector<Arg>& args) const {
  for (const Arg& arg : args) {
    require_string(arg.key, "argument key");
    if (const auto* text = std::get_if<StringArg>(&arg.value)) {
      require_string(text->id, "argument value");
    }
  }
}

EventRef TscWriter::add_span(std::uint32_t track, const SpanRecord& span) {
  TrackBuffers& buffers = buffers_for(track);
  if (span.end < span.start) {
    throw TraceError("span ends (" + std::to_string(span.end) + " ns) before it starts (" +
                     std::to_string(span.start) + " ns)");
  }
  require_string(span.name, "span name");
  require_args(span.args);
  const std::uint32_t index = take_index(buffers.accepted[0]);
  TrackBuffers::Spans& spans = buffers.spans;
  append_delta(spans.starts, span.start, spans.last_start);
  spans.durations.varint(static_cast<std::uint64_t>(span.end) -
                         static_cast<std::uint64_t>(span.start));
  spans.names.varint(span.name);
  spans.categories.u8(static_cast<std::uint8_t>(span.category));
  std::uint8_t flags = 0;
  if (span.correlation_id != 0) flags |= tsc::kSpanHasCorrelation;
  if (span.external_correlation_id != 0) flags |= tsc::kSpanHasExternalCorrelation;
  if (span.kernel) flags |= tsc::kSpanHasKernel;
  if (span.copy) flags |= tsc::kSpanHasCopy;
  if (span.op) flags |= tsc::kSpanHasOp;
  if (!span.args.empty()) flags |= tsc::kSpanHasArgs;
  spans.flags.u8(flags);
  if (span.correlation_id != 0) spans.details.varint(span.correlation_id);
  if (span.external_correlation_id != 0) spans.details.varint(span.external_correlation_id);
  if (span.kernel) encode_kernel(spans.details, *span.kernel);
  if (span.copy) encode_copy(spans.details, *span.copy);
  if (span.op) encode_op(spans.details, *span.op);
  if (!span.args.empty()) encode_args(spans.details, span.args);
  if (++spans.count >= options_.events_per_chunk || spans.details.size() >= kFlushBytes) {
    flush_spans(track);
  }
  return {EventKind::kSpan, track, index};
}

EventRef TscWriter::add_instant(std::uint32_t track, const InstantRecord& instant) {
  TrackBuffers& buffers = buffers_for(track);
  require_string(instant.name, "instant name");
  require_args(instant.args);
  const std::uint32_t index = take_index(buffers.accepted[1]);
  TrackBuffers::Instants& instants = buffers.instants;
  append_delta(instants.times, instant.time, instants.last_time);
  instants.names.varint(instant.name);
  instants.categories.u8(static_cast<std::uint8_t>(instant.category));
  encode_args(instants.args, instant.args);
  if (++instants.count >= options_.events_per_chunk || instants.args.size() >= kFlushBytes) {
    flush_instants(track);
  }
  return {EventKind::kInstant, track, index};
}

EventRef TscWriter::add_counter_sample(std::uint32_t track, TimeNs time, double value) {
  TrackBuffers& buffers = buffers_for(track);
  const std::uint32_t index = take_index(buffers.accepted[2]);
  TrackBuffers::Counters& counters = buffers.counters;
  append_delta(counters.times, time, counters.last_time);
  counters.values.f64(value);
  if (++counters.count >= options_.events_per_chunk) flush_counters(track);
  return {EventKind::kCounterSample, track, index};
}

EventRef TscWriter::add_memory_event(std::uint32_t track, const MemoryRecord& event) {
  TrackBuffers& buffers = buffers_for(track);
  require_string(event.owner_op, "memory event owner");
  require_string(event.scope, "memory event scope");
  const std::uint32_t index = take_index(buffers.accepted[3]);
  TrackBuffers::Memory& memory = buffers.memory;
  append_delta(memory.times, event.time, memory.last_time);
  memory.actions.u8(static_cast<std::uint8_t>(event.action));
  const auto address = static_cast<std::int64_t>(event.address);
  append_delta(memory.addresses, address, memory.last_address);
  memory.bytes.varint(event.bytes);
  memory.devices.svarint(event.device);
  memory.owners.varint(event.owner_op);
  memory.scopes.varint(event.scope);
  const auto allocated = static_cast<std::int64_t>(event.total_allocated);
  append_delta(memory.allocated, allocated, memory.last_allocated);
  const auto reserved = static_cast<std::int64_t>(event.total_reserved);
  append_delta(memory.reserved, reserved, memory.last_reserved);
  if (++memory.count >= options_.events_per_chunk) flush_memory(track);
  return {EventKind::kMemory, track, index};
}

void TscWriter::require_ref(const EventRef& ref) const {
  if (ref.track >= track_buffers_.size() ||
      ref.index >= track_buffers_[ref.track]->accepted[static_cast<std::size_t>(ref.kind)]) {
    throw TraceError("flow endpoint names no event: " + std::string(to_string(ref.kind)) + " " +
                     std::to_string(ref.index) + " of track " + std::to_string(ref.track));
  }
}

void TscWriter::add_flow(const Flow& flow) {
  check_open();
  require_ref(flow.from);
  require_ref(flow.to);
  pending_flows_.push_back(flow);
}

void TscWriter::add_dropped_events(std::uint64_t count) {
  metadata_.dropped_events += count;
}

void TscWriter::set_metadata_value(std::string_view key, std::string_view value) {
  metadata_.values[std::string(key)] = std::string(value);
}

void TscWriter::set_lost(std::uint64_t lost_bytes, std::uint64_t lost_records) {
  metadata_.lost_bytes = lost_bytes;
  metadata_.lost_records = lost_records;
}

// Strings, processes and tracks go out before any chunk that names them, so every prefix of the
// file is self-contained.
void TscWriter::write_pending_definitions() {
  // One chunk of `type` with the definitions from `written` up to `defined`, which it starts by
  // naming, so a reader can check that no chunk of them was lost.
  const auto write_new = [this](ChunkType type, std::size_t& written, std::size_t defined,
                                const auto& encode) {
    if (written >= defined) return;
    ByteWriter payload;
    payload.varint(written);
    payload.varint(defined - written);
    for (std::size_t index = written; index < defined; ++index)
      encode(payload, index);
    write_chunk(type, payload);
    written = defined;
  };
  write_new(ChunkType::kStrings, strings_written_, strings_.size(),
            [this](ByteWriter& payload, std::size_t id) {
              payload.string(strings_.view(static_cast<StringId>(id)));
            });
  write_new(ChunkType::kProcesses, processes_written_, processes_.size(),
            [this](ByteWriter& payload, std::size_t index) {
              const Process& process = processes_[index];
              payload.svarint(process.pid);
              payload.varint(process.name);
              payload.varint(process.host);
              payload.svarint(process.rank);
              payload.svarint(process.sort_index);
            });
  write_new(ChunkType::kTracks, tracks_written_, tracks_.size(),
            [this](ByteWriter& payload, std::size_t index) {
              const TrackInfo& track = tracks_[index];
              payload.u8(static_cast<std::uint8_t>(track.kind));
              payload.varint(track.name);
              payload.varint(track.process);
              payload.svarint(track.thread_id);
              payload.svarint(track.device);
              payload.svarint(track.stream);
              payload.svarint(track.sort_index);
            });
}

void TscWriter::write_event_chunk(ChunkType type, std::uint32_t track, std::uint32_t& count,
                                  std::initializer_list<ByteWriter*> columns) {
  if (count == 0) return;
  write_pending_definitions();
  ByteWriter payload;
  payload.varint(track);
  payload.varint(count);
  for (ByteWriter* column : columns) {
    payload.append(*column);
    column->clear();
  }
  write_chunk(type, payload);
  count = 0;
}

void TscWriter::flush_spans(std::uint32_t track) {
  TrackBuffers::Spans& spans = track_buffers_[track]->spans;
  write_event_chunk(ChunkType::kSpans, track, spans.count,
                    {&spans.starts, &spans.durations, &spans.names, &spans.categories, &spans.flags,
                     &spans.details});
  spans.last_start = 0;
}

void TscWriter::flush_instants(std::uint32_t track) {
  TrackBuffers::Instants& instants = track_buffers_[track]->instants;
  write_event_chunk(ChunkType::kInstants, track, instants.count,
                    {&instants.times, &instants.names, &instants.categories, &instants.args});
  instants.last_time = 0;
}

void TscWriter::flush_counters(std::uint32_t track) {
  TrackBuffers::Counters& counters = track_buffers_[track]->counters;
  write_event_chunk(ChunkType::kCounterSamples, track, counters.count,
                    {&counters.times, &counters.values});
  counters.last_time = 0;
}

void TscWriter::flush_memory(std::uint32_t track) {
  TrackBuffers::Memory& memory = track_buffers_[track]->memory;
  write_event_chunk(
      ChunkType::kMemoryEvents, track, memory.count,
      {&memory.times, &memory.actions, &memory.addresses, &memory.bytes, &memory.devices,
       &memory.owners, &memory.scopes, &memory.allocated, &memory.reserved});
  memory = TrackBuffers::Memory{};
}

void TscWriter::write_metadata() {
  ByteWriter payload;
  payload.string(metadata_.source_format);
  payload.varint(metadata_.dropped_events);
  payload.varint(metadata_.lost_bytes);
  payload.varint(metadata_.lost_records);
  payload.varint(metadata_.values.size());
  for (const auto& [key, value] : metadata_.values) {
    payload.string(key);
    payload.string(value);
  }
  write_chunk(ChunkType::kMetadata, payload);
}

void TscWriter::write_chunk(ChunkType type, const ByteWriter& payload) {
  const auto& raw = payload.bytes();
  if (raw.size() > tsc::kMaxChunkPayload) {
    throw TraceError("chunk payload of " + std::to_string(raw.size()) +
                     " bytes exceeds the format's limit; lower events_per_chunk");
  }
  compressed_.resize(ZSTD_compressBound(raw.size()));
  const std::size_t compressed_size = ZSTD_compress(compressed_.data(), compressed_.size(),
                                                    raw.data(), raw.size(), options_.zstd_level);
  if (ZSTD_isError(compressed_size)) {
    throw IoError(path_,
                  std::string("zstd compression failed: ") + ZSTD_getErrorName(compressed_size));
  }
  std::uint8_t header[tsc::kChunkHeaderSize] = {};
  header[0] = static_cast<std::uint8_t>(type);
  tsc::store_u32(header + 4, static_cast<std::uint32_t>(raw.size()));
  tsc::store_u32(header + 8, static_cast<std::uint32_t>(compressed_size));
  const std::span<const std::uint8_t> checksummed(header, tsc::kChunkChecksummedHeaderBytes);
  tsc::store_u32(header + 12,
                 tsc::chunk_checksum(checksummed, {compressed_.data(), compressed_size}));
  write_bytes(header, sizeof header);
  write_bytes(compressed_.data(), compressed_size);
  ++chunks_written_;
}

void TscWriter::flush() {
  check_open();
  write_pending_definitions();
  for (std::uint32_t track = 0; track < track_buffers_.size(); ++track) {
    flush_spans(track);
    flush_instants(track);
    flush_counters(track);
    flush_memory(track);
  }
  // Flows go last: the events they name are then already in earlier chunks.
  if (!pending_flows_.empty()) {
    ByteWriter payload;
    payload.varint(pending_flows_.size());
    for (const Flow& flow : pending_flows_) {
      payload.u8(static_cast<std::uint8_t>(flow.kind));
      payload.varint(flow.id);
      encode_ref(payload, flow.from);
      encode_ref(payload, flow.to);
    }
    write_chunk(ChunkType::kFlows, payload);
    pending_flows_.clear();
  }
  write_metadata();
}

void TscWriter::close() {
  flush();
  if (::close(std::exchange(descriptor_, -1)) != 0) {
    throw IoError(path_, std::string("close failed: ") + std::strerror(errno));
  }
}

void write_tsc(const Trace& trace, const std::filesystem::path& path,
               const TscWriterOptions& options) {
  TscWriterOptions effective = options;
  effective.source_format = trace.metadata().source_format;
  TscWriter writer(path, effective);
  // Interning in id order gives the file the trace's own string ids.
  for (std::size_t id = 1; id < trace.strings().size(); ++id) {
    writer.intern(trace.strings().view(static_cast<StringId>(id)));
  }
  for (const Process& process : trace.processes())
    writer.add_process(process);
  for (const Track& track : trace.tracks())
    writer.add_track(track.info());
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const Track& source = trace.track(track);
    for (std::uint32_t span = 0; span < source.spans().size(); ++span) {
      writer.add_span(track, trace.span_record(track, span));
    }
    for (std::uint32_t instant = 0; instant < source.instants().size(); ++instant) {
      writer.add_instant(track, trace.instant_record(track, instant));
    }
    const CounterColumns& counters = source.counters();
    for (std::size_t sample = 0; sample < counters.size(); ++sample) {
      writer.add_counter_sample(track, counters.time[sample], counters.value[sample]);
    }
    for (std::size_t event = 0; event < source.memory().size(); ++event) {
      writer.add_memory_event(track, source.memory().record(event));
    }
  }
  // Events went in sorted order, so the flows' sorted indices are also arrival indices.
  for (const Flow& flow : trace.flows())
    writer.add_flow(flow);
  writer.add_dropped_events(trace.metadata().dropped_events);
  writer.set_lost(trace.metadata().lost_bytes, trace.metadata().lost_records);
  for (const auto& [key, value] : trace.metadata().values)
    writer.set_metadata_value(key, value);
  writer.close();
}

}  // namespace tscope::trace
