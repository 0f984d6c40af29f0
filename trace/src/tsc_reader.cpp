#include "tscope/trace/tsc_reader.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "byte_codec.h"
#include "tsc_input.h"
#include "tsc_layout.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace {
namespace {

using codec::ByteReader;
using tsc::ChunkType;

template <typename Enum>
Enum read_enum(ByteReader& in, Enum last, const char* what) {
  const std::uint8_t value = in.u8();
  if (value > static_cast<std::uint8_t>(last)) {
    in.fail(std::string("unknown ") + what + " " + std::to_string(value));
  }
  return static_cast<Enum>(value);
}

// Decodes chunk payloads into a TraceBuilder, translating the file's ids into the builder's and
// checking every id, enum and count against what the file has defined so far.
class ChunkDecoder {
 public:
  void decode(ChunkType type, ByteReader& in) { (this->*chunk_kind(type).decode)(in); }

  // The name errors give a chunk of `type`.
  static std::string_view chunk_name(ChunkType type) { return chunk_kind(type).name; }

  Trace finish(std::uint64_t lost_bytes) {
    TraceMetadata& metadata = builder_.metadata();
    metadata = metadata_;
    metadata.lost_bytes += lost_bytes;
    if (lost_bytes != 0) ++metadata.lost_records;
    return builder_.finalize();
  }

 private:
  StringId string(ByteReader& in) {
    const std::uint64_t id = in.varint();
    if (id >= string_ids_.size()) in.fail("string id " + std::to_string(id) + " is not defined");
    return string_ids_[id];
  }

  std::uint32_t defined_index(ByteReader& in, std::size_t defined, const char* what) {
    const std::uint64_t index = in.varint();
    if (index >= defined)
      in.fail(std::string(what) + " " + std::to_string(index) + " is not defined");
    return static_cast<std::uint32_t>(index);
  }

  void expect_first(ByteReader& in, std::size_t defined, const char* what) {
    const std::uint64_t first = in.varint();
    if (first != defined) {
      in.fail(std::string(what) + " chunk starts at " + std::to_string(first) + " but " +
              std::to_string(defined) + " are defined");
    }
  }

  void decode_strings(ByteReader& in) {
    expect_first(in, string_ids_.size(), "strings");
    const std::size_t count = in.count("string");
    for (std::size_t each = 0; each < count; ++each)
      string_ids_.push_back(builder_.intern(in.string()));
  }

  void decode_processes(ByteReader& in) {
    expect_first(in, process_count_, "processes");
    const std::size_t count = in.count("process", 5);
    for (std::size_t each = 0; each < count; ++each) {
      Process process;
      process.pid = in.svarint();
      process.name = string(in);
      process.host = string(in);
      process.rank = in.svarint32("rank");
      process.sort_index = in.svarint32("sort index");
      builder_.add_process(process);
      ++process_count_;
    }
  }

  void decode_tracks(ByteReader& in) {
    expect_first(in, events_per_track_.size(), "tracks");
    const std::size_t count = in.count("track", 7);
    for (std::size_t each = 0; each < count; ++each) {
      TrackInfo track;
      track.kind = read_enum(in, TrackKind::kMemoryPool, "track kind");
      track.name = string(in);
      track.process = defined_index(in, process_count_, "process");
      track.thread_id = in.svarint();
      track.device = in.svarint32("device");
      track.stream = in.svarint();
      track.sort_index = in.svarint32("sort index");
      builder_.add_track(track);
      events_per_track_.push_back({});
    }
  }

  std::vector<Arg> args(ByteReader& in) {
    std::vector<Arg> decoded(in.count("argument", 3));
    for (Arg& arg : decoded) {
      arg.key = string(in);
      switch (in.u8()) {
        case tsc::kArgInt:
          arg.value = in.svarint();
          break;
        case tsc::kArgDouble:
          arg.value = in.f64();
          break;
        case tsc::kArgString:
          arg.value = StringArg{string(in)};
          break;
        default:
          in.fail("unknown argument type");
      }
    }
    return decoded;
  }

  static KernelInfo kernel(ByteReader& in) {
    KernelInfo decoded;
    for (std::uint32_t& extent : decoded.grid)
      extent = in.varint32("grid extent");
    for (std::uint32_t& extent : decoded.block)
      extent = in.varint32("block extent");
    decoded.registers_per_thread = in.varint32("registers per thread");
    decoded.static_shared_bytes = in.varint32("static shared memory");
    decoded.dynamic_shared_bytes = in.varint32("dynamic shared memory");
    decoded.device = in.svarint32("device");
    decoded.stream = in.svarint();
    return decoded;
  }

  static CopyInfo copy(ByteReader& in) {
    CopyInfo decoded;
    decoded.bytes = in.varint();
    decoded.direction = read_enum(in, CopyDirection::kPeerToPeer, "copy direction");
    decoded.source = read_enum(in, MemoryKind::kManaged, "memory kind");
    decoded.destination = read_enum(in, MemoryKind::kManaged, "memory kind");
    return decoded;
  }

  static std::vector<std::uint64_t> ids(ByteReader& in) {
    std::vector<std::uint64_t> decoded(in.count("tensor id"));
    for (std::uint64_t& id : decoded)
      id = in.varint();
    return decoded;
  }

  static OpInfo op(ByteReader& in) {
    OpInfo decoded;
    decoded.input_shapes.resize(in.count("input shape"));
    for (auto& shape : decoded.input_shapes) {
      shape.resize(in.count("shape extent"));
      for (std::int64_t& extent : shape)
        extent = in.svarint();
    }
    decoded.flops = in.varint();
    decoded.bytes_read = in.varint();
    decoded.bytes_written = in.varint();
    decoded.tensors_read = ids(in);
    decoded.tensors_written = ids(in);
    return decoded;
  }

  // Reads `count` zigzag deltas restarting from 0 at the chunk's start.
  static std::vector<TimeNs> times(ByteReader& in, std::size_t count) {
    std::vector<TimeNs> decoded(count);
    TimeNs previous = 0;
    for (TimeNs& time : decoded)
      previous = time = codec::wrapping_add(previous, in.svarint());
    return decoded;
  }

  // The name and category columns of a spans or instants chunk.
  std::vector<StringId> name_column(ByteReader& in, std::size_t count) {
    std::vector<StringId> names(count);
    for (StringId& name : names)
      name = string(in);
    return names;
  }

  static std::vector<Category> category_column(ByteReader& in, std::size_t count) {
    std::vector<Category> categories(count);
    for (Category& category : categories)
      category = read_enum(in, Category::kOther, "category");
    return categories;
  }

  std::uint32_t event_track(ByteReader& in) {
    return defined_index(in, events_per_track_.size(), "track");
  }

  void count_events(std::uint32_t track, EventKind kind, std::size_t count) {
    events_per_track_[track][static_cast<std::size_t>(kind)] += count;
  }

  void decode_spans(ByteReader& in) {
    const std::uint32_t track = event_track(in);
    const std::size_t count = in.count("span", 5);
    const std::vector<TimeNs> starts = times(in, count);
    std::vector<std::uint64_t> durations(count);
    for (std::uint64_t& duration : durations)
      duration = in.varint();
    const std::vector<StringId> names = name_column(in, count);
    const std::vector<Category> categories = category_column(in, count);
    std::vector<std::uint8_t> flags(count);
    for (std::uint8_t& flag : flags) {
      flag = in.u8();
      if ((flag & ~tsc::kSpanKnownFlags) != 0) in.fail("unknown span flags");
    }
    SpanRecord span;
    for (std::size_t index = 0; index < count; ++index) {
      span.start = starts[index];
      span.end = codec::wrapping_add(span.start, static_cast<std::int64_t>(durations[index]));
      // The sum wrapped past INT64_MAX exactly when the end lands before the start.
      if (span.end < span.start) {
        in.fail("span duration overflows the time range");
      }
      span.name = names[index];
      span.category = categories[index];
      const std::uint8_t flag = flags[index];
      span.correlation_id =
          (flag & tsc::kSpanHasCorrelation) != 0 ? in.varint32("correlation id") : 0;
      span.external_correlation_id =
          (flag & tsc::kSpanHasExternalCorrelation) != 0 ? in.varint() : 0;
      if ((flag & tsc::kSpanHasKernel) != 0)
        span.kernel = kernel(in);
      else
        span.kernel.reset();
      if ((flag & tsc::kSpanHasCopy) != 0)
        span.copy = copy(in);
      else
        span.copy.reset();
      if ((flag & tsc::kSpanHasOp) != 0)
        span.op = op(in);
      else
        span.op.reset();
      if ((flag & tsc::kSpanHasArgs) != 0)
        span.args = args(in);
      else
        span.args.clear();
      builder_.add_span(track, span);
    }
    count_events(track, EventKind::kSpan, count);
  }

  void decode_instants(ByteReader& in) {
    const std::uint32_t track = event_track(in);
    const std::size_t count = in.count("instant", 4);
    const std::vector<TimeNs> instant_times = times(in, count);
    const std::vector<StringId> names = name_column(in, count);
    const std::vector<Category> categories = category_column(in, count);
    for (std::size_t index = 0; index < count; ++index) {
      builder_.add_instant(track,
                           {instant_times[index], names[index], categories[index], args(in)});
    }
    count_events(track, EventKind::kInstant, count);
  }

  void decode_counter_samples(ByteReader& in) {
    const std::uint32_t track = event_track(in);
    const std::size_t count = in.count("counter sample", 9);
    const std::vector<TimeNs> sample_times = times(in, count);
    for (std::size_t index = 0; index < count; ++index) {
      builder_.add_counter_sample(track, sample_times[index], in.f64());
    }
    count_events(track, EventKind::kCounterSample, count);
  }

  void decode_memory_events(ByteReader& in) {
    const std::uint32_t track = event_track(in);
    const std::size_t count = in.count("memory event", 9);
    std::vector<MemoryRecord> events(count);
    TimeNs time = 0;
    for (MemoryRecord& event : events)
      event.time = time = codec::wrapping_add(time, in.svarint());
    for (MemoryRecord& event : events)
      event.action = read_enum(in, MemoryAction::kFree, "memory action");
    std::int64_t address = 0;
    for (MemoryRecord& event : events) {
      event.address =
          static_cast<std::uint64_t>(address = codec::wrapping_add(address, in.svarint()));
    }
    for (MemoryRecord& event : events)
      event.bytes = in.varint();
    for (MemoryRecord& event : events)
      event.device = in.svarint32("device");
    for (MemoryRecord& event : events)
      event.owner_op = string(in);
    for (MemoryRecord& event : events)
      event.scope = string(in);
    std::int64_t allocated = 0;
    for (MemoryRecord& event : events) {
      event.total_allocated =
          static_cast<std::uint64_t>(allocated = codec::wrapping_add(allocated, in.svarint()));
    }
    std::int64_t reserved = 0;
    for (MemoryRecord& event : events) {
      event.total_reserved =
          static_cast<std::uint64_t>(reserved = codec::wrapping_add(reserved, in.svarint()));
    }
    for (const MemoryRecord& event : events)
      builder_.add_memory_event(track, event);
    count_events(track, EventKind::kMemory, count);
  }

  EventRef ref(ByteReader& in) {
    EventRef decoded;
    decoded.kind = read_enum(in, EventKind::kMemory, "event kind");
    decoded.track = event_track(in);
    decoded.index = defined_index(
        in, events_per_track_[decoded.track][static_cast<std::size_t>(decoded.kind)], "event");
    return decoded;
  }

  void decode_flows(ByteReader& in) {
    const std::size_t count = in.count("flow", 8);
    for (std::size_t each = 0; each < count; ++each) {
      Flow flow;
      flow.kind = read_enum(in, FlowKind::kEnqueue, "flow kind");
      flow.id = in.varint();
      flow.from = ref(in);
      flow.to = ref(in);
      builder_.add_flow(flow);
    }
  }

  void decode_metadata(ByteReader& in) {
    TraceMetadata metadata;
    metadata.source_format = std::string(in.string());
    metadata.dropped_events = in.varint();
    metadata.lost_bytes = in.varint();
    metadata.lost_records = in.varint();
    const std::size_t count = in.count("metadata value", 2);
    for (std::size_t each = 0; each < count; ++each) {
      std::string key(in.string());
      metadata.values[std::move(key)] = std::string(in.string());
    }
    metadata_ = std::move(metadata);
  }

  struct ChunkKind {
    std::string_view name;
    void (ChunkDecoder::*decode)(ByteReader&);
  };
  // One entry per ChunkType, in its order from kStrings; read_chunk has checked the type byte.
  static const std::array<ChunkKind, tsc::kLastChunkType> kChunkKinds;

  static const ChunkKind& chunk_kind(ChunkType type) {
    return kChunkKinds[static_cast<std::size_t>(type) - 1];
  }

  TraceBuilder builder_;
  std::vector<StringId> string_ids_{kEmptyString};
  std::size_t process_count_ = 0;
  std::vector<std::array<std::size_t, 4>> events_per_track_;
  TraceMetadata metadata_;
};

const std::array<ChunkDecoder::ChunkKind, tsc::kLastChunkType> ChunkDecoder::kChunkKinds{{
    {"strings", &ChunkDecoder::decode_strings},
    {"processes", &ChunkDecoder::decode_processes},
    {"tracks", &ChunkDecoder::decode_tracks},
    {"spans", &ChunkDecoder::decode_spans},
    {"instants", &ChunkDecoder::decode_instants},
    {"counter samples", &ChunkDecoder::decode_counter_samples},
    {"memory events", &ChunkDecoder::decode_memory_events},
    {"flows", &ChunkDecoder::decode_flows},
    {"metadata", &ChunkDecoder::decode_metadata},
}};

// True when `bytes` could be the start of a .tsc header cut short.
bool is_header_prefix(std::span<const std::uint8_t> bytes) {
  const std::size_t magic_bytes = std::min(bytes.size(), sizeof kTscMagic);
  // memcmp must not see the null data() of an empty input, even for zero bytes.
  return magic_bytes == 0 || std::memcmp(bytes.data(), kTscMagic, magic_bytes) == 0;
}

}  // namespace

bool looks_like_tsc(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= sizeof kTscMagic && is_header_prefix(bytes);
}

namespace {

void check_file_header(std::span<const std::uint8_t> header, const std::filesystem::path& path) {
  if (!looks_like_tsc(header)) throw FormatError(path, 0, "not a .tsc file (bad magic)");
  const std::uint32_t version = tsc::load_u32(header.data() + 8);
  if (version != kTscVersion) {
    throw FormatError(path, 8,
                      "unsupported .tsc version " + std::to_string(version) +
                          " (this build reads version " + std::to_string(kTscVersion) + ")");
  }
  if (tsc::load_u32(header.data() + 12) != 0) throw FormatError(path, 12, "unknown header flags");
}

// Reads the chunk at `offset` into `decoder` and returns its size, header included, or 0 when it
// runs past the end of the input (the cut-off tail of an interrupted write).
std::uint64_t read_chunk(TscInput& input, std::uint64_t offset, ChunkDecoder& decoder,
                         std::vector<std::uint8_t>& payload, const std::filesystem::path& path) {
  const std::uint64_t remaining = input.size() - offset;
  if (remaining < tsc::kChunkHeaderSize) return 0;
  std::array<std::uint8_t, tsc::kChunkHeaderSize> header{};
  std::ranges::copy(input.bytes_at(offset, tsc::kChunkHeaderSize), header.begin());
  const std::uint8_t type = header[0];
  if (type == 0 || type > tsc::kLastChunkType) {
    throw FormatError(path, offset, "unknown chunk type " + std::to_string(type));
  }
  if (header[1] != 0 || header[2] != 0 || header[3] != 0) {
    throw FormatError(path, offset + 1, "reserved chunk header bytes are not zero");
  }
  const std::uint32_t uncompressed_size = tsc::load_u32(header.data() + 4);
  const std::uint32_t compressed_size = tsc::load_u32(header.data() + 8);
  if (uncompressed_size > tsc::kMaxChunkPayload) {
    throw FormatError(path, offset + 4,
                      "chunk claims " + std::to_string(uncompressed_size) +
                          " uncompressed bytes, more than the format allows");
  }
  if (compressed_size > ZSTD_compressBound(tsc::kMaxChunkPayload)) {
    throw FormatError(path, offset + 8,
                      "chunk claims " + std::to_string(compressed_size) +
                          " compressed bytes, more than the format allows");
  }
  if (compressed_size > remaining - tsc::kChunkHeaderSize) return 0;
  const std::span<const std::uint8_t> compressed =
      input.bytes_at(offset + tsc::kChunkHeaderSize, compressed_size);
  const std::uint32_t expected = tsc::load_u32(header.data() + 12);
  const std::uint32_t actual =
      tsc::chunk_checksum({header.data(), tsc::kChunkChecksummedHeaderBytes}, compressed);
  if (actual != expected) {
    throw FormatError(path, offset + 12,
                      "chunk checksum mismatch (stored " + std::to_string(expected) +
                          ", computed " + std::to_string(actual) + ")");
  }
  const unsigned long long declared =
      ZSTD_getFrameContentSize(compressed.data(), compressed.size());
  if (declared != uncompressed_size) {
    throw FormatError(path, offset + tsc::kChunkHeaderSize,
                      "compressed payload does not declare the chunk's uncompressed size");
  }
  payload.resize(uncompressed_size);
  const std::size_t decompressed =
      ZSTD_decompress(payload.data(), payload.size(), compressed.data(), compressed.size());
  if (ZSTD_isError(decompressed) || decompressed != uncompressed_size) {
    throw FormatError(path, offset + tsc::kChunkHeaderSize,
                      std::string("cannot decompress chunk: ") +
                          (ZSTD_isError(decompressed) ? ZSTD_getErrorName(decompressed)
                                                      : "size differs from its header"));
  }
  ByteReader in(payload);
  const auto chunk_type = static_cast<ChunkType>(type);
  try {
    decoder.decode(chunk_type, in);
    if (in.remaining() != 0) in.fail("unread bytes after the chunk's content");
  } catch (const codec::PayloadError& error) {
    throw FormatError(path, offset,
                      std::string(ChunkDecoder::chunk_name(chunk_type)) + " chunk, payload byte " +
                          std::to_string(error.offset()) + ": " + error.what());
  } catch (const TraceError& error) {
    throw FormatError(
        path, offset,
        std::string(ChunkDecoder::chunk_name(chunk_type)) + " chunk: " + error.what());
  }
  return tsc::kChunkHeaderSize + compressed_size;
}

TscReadResult read_tsc_input(TscInput& input, const std::filesystem::path& path) {
  ChunkDecoder decoder;
  TscReadResult result;
  if (input.size() < tsc::kFileHeaderSize) {
    const auto bytes = input.bytes_at(0, static_cast<std::size_t>(input.size()));
    if (!is_header_prefix(bytes)) throw FormatError(path, 0, "not a .tsc file (bad magic)");
    result.lost_bytes = bytes.size();
    result.trace = decoder.finish(result.lost_bytes);
    return result;
  }
  check_file_header(input.bytes_at(0, tsc::kFileHeaderSize), path);
  // One buffer for every chunk's payload: at most the format's 64 MiB, whatever the file's size.
  std::vector<std::uint8_t> payload;
  std::uint64_t offset = tsc::kFileHeaderSize;
  try {
    while (offset < input.size()) {
      const std::uint64_t chunk_size = read_chunk(input, offset, decoder, payload, path);
      if (chunk_size == 0) break;
      offset += chunk_size;
      ++result.chunks_read;
    }
    payload = {};
    result.lost_bytes = input.size() - offset;
    try {
      result.trace = decoder.finish(result.lost_bytes);
    } catch (const TraceError& error) {
      throw FormatError(path, offset, error.what());
    }
  } catch (const std::bad_alloc&) {
    // The events of the chunks before `offset` filled the memory the process may use.
    throw out_of_memory_reading(path, offset);
  }
  return result;
}

}  // namespace

TscReadResult read_tsc(std::span<const std::uint8_t> bytes, const std::filesystem::path& path) {
  TscBytesInput input(bytes);
  return read_tsc_input(input, path);
}

TscReadResult read_tsc(const std::filesystem::path& path) {
  TscFileInput input(path);
  return read_tsc_input(input, path);
}

}  // namespace tscope::trace
