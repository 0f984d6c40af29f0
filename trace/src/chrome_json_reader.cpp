#include "tscope/trace/chrome_json_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chrome_byte_source.h"
#include "chrome_event_windows.h"
#include "chrome_flow_binder.h"
#include "chrome_json_values.h"
#include "chrome_raw_event.h"
#include "chrome_span_pairs.h"
#include "chrome_text_cache.h"
#include "chrome_track_map.h"
#include "chrome_window_pipeline.h"
#include "tscope/trace/chrome_kineto_names.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace {
namespace {

namespace dom = simdjson::dom;
using namespace chrome_json;

bool is_gpu_row(Category category) {
  return category == Category::kKernel || category == Category::kMemcpy ||
         category == Category::kMemset || category == Category::kGpuUserAnnotation ||
         category == Category::kSynchronization;
}

// The args of a span that become structured fields; kOther stays an arg.
enum class SpanArgKey : std::uint8_t {
  kOther,
  kCorrelation,
  kExternalId,
  kGrid,
  kBlock,
  kRegistersPerThread,
  kSharedMemory,
  kStaticSharedMemory,
  kDynamicSharedMemory,
  kDevice,
  kStream,
  kBytes,
  kCopyKind,
  kSourceMemory,
  kDestinationMemory,
  kInputDims,
  kFlops,
  kBytesRead,
  kBytesWritten,
  kTensorsRead,
  kTensorsWritten,
};

SpanArgKey span_arg_key(std::string_view key) {
  struct KeyName {
    std::string_view key;
    SpanArgKey meaning;
  };
  static constexpr std::array kKeys{
      KeyName{"correlation", SpanArgKey::kCorrelation},
      KeyName{"External id", SpanArgKey::kExternalId},
      KeyName{"external id", SpanArgKey::kExternalId},
      KeyName{"grid", SpanArgKey::kGrid},
      KeyName{"block", SpanArgKey::kBlock},
      KeyName{"registers per thread", SpanArgKey::kRegistersPerThread},
      KeyName{"shared memory", SpanArgKey::kSharedMemory},
      KeyName{"static shared memory", SpanArgKey::kStaticSharedMemory},
      KeyName{"dynamic shared memory", SpanArgKey::kDynamicSharedMemory},
      KeyName{"device", SpanArgKey::kDevice},
      KeyName{"stream", SpanArgKey::kStream},
      KeyName{"bytes", SpanArgKey::kBytes},
      KeyName{"copy kind", SpanArgKey::kCopyKind},
      KeyName{"src memory", SpanArgKey::kSourceMemory},
      KeyName{"dst memory", SpanArgKey::kDestinationMemory},
      KeyName{"Input Dims", SpanArgKey::kInputDims},
      KeyName{"flops", SpanArgKey::kFlops},
      KeyName{"bytes read", SpanArgKey::kBytesRead},
      KeyName{"bytes written", SpanArgKey::kBytesWritten},
      KeyName{"tensors read", SpanArgKey::kTensorsRead},
      KeyName{"tensors written", SpanArgKey::kTensorsWritten},
  };
  for (const KeyName& entry : kKeys) {
    if (entry.key == key) return entry.meaning;
  }
  return SpanArgKey::kOther;
}

// Fields ordered largest first: one is kept for every flow event of the file.
struct PendingFlowEnd {
  std::uint64_t id = 0;
  // What tied the ends, when the writer says ("correlation" in our export's flow args): our
  // arrows each have their own id, while a launch that feeds several kernels has one correlation.
  std::optional<std::uint64_t> correlation;
  RowId row;
  TimeNs time = 0;
  FlowKind kind = FlowKind::kOther;
  bool is_start = true;
  bool binds_to_next = false;
};

// Chrome pairs the ends of an async span by category and id within a process.
struct AsyncKey {
  std::int64_t pid = 0;
  std::string cat;
  std::uint64_t id = 0;
  auto operator<=>(const AsyncKey&) const = default;
};

class ChromeImporter {
 public:
  explicit ChromeImporter(const std::string& source) : source_(source) {}

  Trace import(ChromeEventWindows& windows, const LoadProgressCallback& progress);

 private:
  void read_top_level(const std::string& members);
  // Returns the number of events the window held.
  std::size_t read_window(const ParsedEventWindow& parsed);
  void read_event(const RawEvent& event);
  void add_span(const RawEvent& event, TimeNs start, TimeNs end);
  void add_instant(const RawEvent& event, TimeNs time);
  void add_memory_event(const RawEvent& event, TimeNs time);
  void add_counter(const RawEvent& event, TimeNs time);
  void add_flow_end(const RawEvent& event, TimeNs time);
  // The fields of a begin event kept as text, valid until the next replay.
  RawEvent replay(const BeginEnd& begin);
  void match_begin_end();
  void match_async();
  // Binds the flow ends to spans and pairs them into flows; frees what binding needed.
  void finish_flows();

  std::optional<TimeNs> time_of(const std::optional<dom::element>& value,
                                std::string_view text) const;
  StringId intern(std::string_view text) {
    return string_ids_.find_or_make(
        text, [this](std::string_view fresh) { return builder_.intern(fresh); });
  }
  void fill_span(const RawEvent& event, Category category);
  void append_scalar_arg(std::string_view key, dom::element value, std::vector<Arg>& args);
  void keep_chrome_category(const RawEvent& event, Category category, std::vector<Arg>& args);

  const std::string& source_;
  TraceBuilder builder_;
  ChromeTrackMap tracks_{builder_};
  TimeNs base_time_ = 0;
  std::uint64_t skipped_events_ = 0;
  std::uint64_t events_read_ = 0;

  // The spans of each Chrome row, for flow events to bind to.
  std::map<RowId, ChromeFlowBinder> row_spans_;

  std::map<RowId, std::vector<BeginEnd>> begin_ends_;
  std::map<AsyncKey, std::vector<BeginEnd>> async_ends_;
  std::vector<PendingFlowEnd> flow_ends_;

  // Every string of the events goes to the builder's table through string_ids_.
  ChromeTextCache<StringId> string_ids_;
  ChromeTextCache<SpanArgKey> span_arg_keys_;

  SpanRecord span_;  // reused so per-event argument vectors keep their capacity
  // A begin event waiting for its end is kept as its own text (the window's document is gone by
  // then) and parsed again, alone, when matched.
  dom::parser event_parser_;
  dom::parser members_parser_;
};

std::optional<TimeNs> ChromeImporter::time_of(const std::optional<dom::element>& value,
                                              std::string_view text) const {
  if (!value) return std::nullopt;
  const auto nanos = micros_to_ns(*value, text);
  TimeNs time = 0;
  if (!nanos || __builtin_add_overflow(*nanos, base_time_, &time)) return std::nullopt;
  return time;
}

void ChromeImporter::read_top_level(const std::string& members) {
  if (members.empty()) return;
  dom::element parsed;
  if (const auto error = members_parser_.parse(members).get(parsed); error != simdjson::SUCCESS) {
    throw FormatError(source_, 0, std::string("not valid JSON: ") + simdjson::error_message(error));
  }
  for (const dom::key_value_pair field : object_of(parsed)) {
    const std::string_view key = field.key;
    if (key == "traceEvents" || key == "schemaVersion") continue;
    if (key == "droppedEvents") {
      if (const auto dropped = as_integer(field.value); dropped && *dropped > 0) {
        builder_.add_dropped_events(static_cast<std::uint64_t>(*dropped));
      }
    } else if (key == "baseTimeNanoseconds") {
      // Kineto writes times relative to this base so that they keep nanosecond decimals.
      if (const auto base = as_integer(field.value)) base_time_ = *base;
    } else if (key == "distributedInfo" && field.value.type() == dom::element_type::OBJECT) {
      // The rank is the process's (Process::rank); the rest is kept under the metadata keys our
      // own distributed traces use (world_size, backend).
      for (const dom::key_value_pair info : object_of(field.value)) {
        const std::string info_key(info.key);
        if (const auto number = as_integer(info.value)) {
          if (info_key == "rank") {
            tracks_.set_rank(static_cast<std::int32_t>(*number));
          } else {
            builder_.set_metadata_value(info_key, std::to_string(*number));
          }
        } else if (info.value.type() == dom::element_type::STRING) {
          builder_.set_metadata_value(info_key, as_string(info.value));
        }
      }
    } else if (key == "deviceProperties" && field.value.type() == dom::element_type::ARRAY) {
      for (const dom::element device : array_of(field.value)) {
        dom::element id;
        dom::element name;
        if (device["id"].get(id) == simdjson::SUCCESS &&
            device["name"].get(name) == simdjson::SUCCESS && as_integer(id)) {
          builder_.set_metadata_value("device." + std::to_string(*as_integer(id)) + ".name",
                                      as_string(name));
          dom::element memory;
          if (device["totalGlobalMem"].get(memory) == simdjson::SUCCESS && as_integer(memory)) {
            builder_.set_metadata_value(
                "device." + std::to_string(*as_integer(id)) + ".total_memory",
                std::to_string(*as_integer(memory)));
          }
        }
      }
    } else if (field.value.type() == dom::element_type::STRING) {
      builder_.set_metadata_value(key, as_string(field.value));
    } else if (const auto number = as_integer(field.value)) {
      builder_.set_metadata_value(key, std::to_string(*number));
    }
  }
}

void ChromeImporter::fill_span(const RawEvent& event, Category category) {
  span_.name = intern(event.name);
  span_.category = category;
  span_.correlation_id = 0;
  span_.external_correlation_id = 0;
  span_.kernel.reset();
  span_.copy.reset();
  span_.op.reset();
  span_.args.clear();
  keep_chrome_category(event, category, span_.args);
  if (!event.args) return;

  // One pass over the args: known keys become structured fields, other scalars stay args.
  KernelInfo kernel;
  CopyInfo copy;
  OpInfo op;
  bool has_op = false;
  std::optional<std::uint64_t> shared_total;
  for (const dom::key_value_pair field : *event.args) {
    const std::string_view key = field.key;
    const dom::element value = field.value;
    const auto integer = [&] { return as_integer(value); };
    switch (span_arg_keys_.find_or_make(key, span_arg_key)) {
      case SpanArgKey::kCorrelation:
        span_.correlation_id = static_cast<std::uint32_t>(non_negative(integer()));
        break;
      case SpanArgKey::kExternalId:
        span_.external_correlation_id = non_negative(integer());
        break;
      case SpanArgKey::kGrid:
        kernel.grid = dim3(value);
        break;
      case SpanArgKey::kBlock:
        kernel.block = dim3(value);
        break;
      case SpanArgKey::kRegistersPerThread:
        kernel.registers_per_thread = static_cast<std::uint32_t>(non_negative(integer()));
        break;
      case SpanArgKey::kSharedMemory:
        shared_total = non_negative(integer());
        break;
      case SpanArgKey::kStaticSharedMemory:
        kernel.static_shared_bytes = static_cast<std::uint32_t>(non_negative(integer()));
        break;
      case SpanArgKey::kDynamicSharedMemory:
        kernel.dynamic_shared_bytes = static_cast<std::uint32_t>(non_negative(integer()));
        break;
      case SpanArgKey::kDevice:
        kernel.device = static_cast<std::int32_t>(integer().value_or(-1));
        break;
      case SpanArgKey::kStream:
        kernel.stream = integer().value_or(-1);
        break;
      case SpanArgKey::kBytes:
        copy.bytes = non_negative(integer());
        break;
      case SpanArgKey::kCopyKind:
        copy.direction =
            enum_from_string<CopyDirection, 6>(as_string(value)).value_or(CopyDirection::kUnknown);
        break;
      case SpanArgKey::kSourceMemory:
        copy.source =
            enum_from_string<MemoryKind, 5>(as_string(value)).value_or(MemoryKind::kUnknown);
        break;
      case SpanArgKey::kDestinationMemory:
        copy.destination =
            enum_from_string<MemoryKind, 5>(as_string(value)).value_or(MemoryKind::kUnknown);
        break;
      case SpanArgKey::kInputDims:
        has_op = true;
        if (value.type() != dom::element_type::ARRAY) break;
        for (const dom::element input : array_of(value)) {
          auto& shape = op.input_shapes.emplace_back();
          if (input.type() != dom::element_type::ARRAY) continue;
          for (const dom::element extent : array_of(input)) {
            if (const auto number = as_integer(extent)) shape.push_back(*number);
          }
        }
        break;
      case SpanArgKey::kFlops:
        op.flops = non_negative(integer());
        has_op = true;
        break;
      case SpanArgKey::kBytesRead:
        op.bytes_read = non_negative(integer());
        has_op = true;
        break;
      case SpanArgKey::kBytesWritten:
        op.bytes_written = non_negative(integer());
        has_op = true;
        break;
      case SpanArgKey::kTensorsRead:
        op.tensors_read = id_list(value);
        has_op = true;
        break;
      case SpanArgKey::kTensorsWritten:
        op.tensors_written = id_list(value);
        has_op = true;
        break;
      case SpanArgKey::kOther:
        append_scalar_arg(key, value, span_.args);
        break;
    }
  }
  if (category == Category::kKernel) {
    // Kineto reports static + dynamic shared memory as one figure.
    if (shared_total && kernel.static_shared_bytes == 0 && kernel.dynamic_shared_bytes == 0) {
      kernel.static_shared_bytes = static_cast<std::uint32_t>(*shared_total);
    }
    span_.kernel = kernel;
  } else if (category == Category::kMemcpy || category == Category::kMemset) {
    // The name says what Kineto copied ("Memcpy HtoD (Pageable -> Device)"); our own export
    // states it in args, which win.
    const CopyInfo named =
        category == Category::kMemcpy ? copy_from_kineto_name(event.name) : CopyInfo{};
    if (copy.direction == CopyDirection::kUnknown) copy.direction = named.direction;
    if (copy.source == MemoryKind::kUnknown) copy.source = named.source;
    if (copy.destination == MemoryKind::kUnknown) {
      copy.destination = category == Category::kMemset && event.name == "Memset (Device)"
                             ? MemoryKind::kDevice
                             : named.destination;
    }
    span_.copy = copy;
  }
  if (has_op) span_.op = std::move(op);
}

void ChromeImporter::keep_chrome_category(const RawEvent& event, Category category,
                                          std::vector<Arg>& args) {
  if (category != Category::kOther || event.cat.empty() || event.cat == chrome_category(category)) {
    return;
  }
  args.push_back({intern(kChromeCategoryArg), StringArg{intern(event.cat)}});
}

void ChromeImporter::append_scalar_arg(std::string_view key, dom::element value,
                                       std::vector<Arg>& args) {
  switch (value.type()) {
    case dom::element_type::INT64:
      args.push_back({intern(key), value.get_int64().value_unsafe()});
      break;
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE:
      args.push_back({intern(key), *as_double(value)});
      break;
    case dom::element_type::STRING:
      args.push_back({intern(key), StringArg{intern(as_string(value))}});
      break;
    case dom::element_type::BOOL:
      args.push_back({intern(key), std::int64_t{value.get_bool().value_unsafe()}});
      break;
    default:
      break;  // nested objects and arrays have no place in the model
  }
}

void ChromeImporter::add_span(const RawEvent& event, TimeNs start, TimeNs end) {
  const Category category = category_from_chrome(event.cat, event.name);
  fill_span(event, category);
  span_.start = start;
  span_.end = std::max(start, end);
  const RowId row = tracks_.row_of(event);
  std::uint32_t track = 0;
  if (is_gpu_row(category)) {
    // pid = device and tid = stream on Kineto's GPU rows; the args say so explicitly.
    const auto device = arg(event, "device");
    const auto stream = arg(event, "stream");
    const auto device_number = device ? as_integer(*device) : std::optional<std::int64_t>{};
    const auto stream_number = stream ? as_integer(*stream) : std::optional<std::int64_t>{};
    if (device_number && stream_number) {
      track = tracks_.gpu_track(*device_number, *stream_number);
    } else if (row.pid >= 0 && row.tid >= 0) {
      track = tracks_.gpu_track(row.pid, row.tid);
    } else {
      track = tracks_.host_track(row);
    }
  } else {
    track = tracks_.host_track(row);
  }
  const EventRef ref = builder_.add_span(track, span_);
  // Flow events may come in any later window, so every row keeps its spans until the end.
  row_spans_[row].add_span(span_.start, span_.end, ref);
}

void ChromeImporter::add_instant(const RawEvent& event, TimeNs time) {
  InstantRecord instant;
  instant.time = time;
  instant.name = intern(event.name);
  instant.category = category_from_chrome(event.cat, event.name);
  keep_chrome_category(event, instant.category, instant.args);
  // Thread scope is the default; a process or global instant says so.
  if (event.scope == "g" || event.scope == "p") {
    instant.args.push_back({intern(kChromeScopeArg), StringArg{intern(event.scope)}});
  }
  if (event.args) {
    for (const dom::key_value_pair field : *event.args) {
      append_scalar_arg(field.key, field.value, instant.args);
    }
  }
  builder_.add_instant(tracks_.host_track(tracks_.row_of(event)), instant);
}

void ChromeImporter::add_memory_event(const RawEvent& event, TimeNs time) {
  const auto integer = [&](std::string_view key) -> std::optional<std::int64_t> {
    const auto value = arg(event, key);
    return value ? as_integer(*value) : std::nullopt;
  };
  MemoryRecord record;
  record.time = time;
  const std::int64_t bytes = integer("Bytes").value_or(0);
  record.action = bytes < 0 ? MemoryAction::kFree : MemoryAction::kAlloc;
  record.bytes =
      bytes < 0 ? static_cast<std::uint64_t>(-(bytes + 1)) + 1 : static_cast<std::uint64_t>(bytes);
  const auto address = arg(event, "Addr");
  record.address = address ? event_id(*address).value_or(0) : 0;
  record.total_allocated = non_negative(integer("Total Allocated"));
  record.total_reserved = non_negative(integer("Total Reserved"));
  // Device Type 0 is the CPU; CUDA devices are numbered by Device Id.
  const std::int64_t device_type = integer("Device Type").value_or(1);
  auto device_id = integer("Device Id");
  if (!device_id) device_id = integer("Device");
  record.device = device_type == 0 || !device_id ? -1 : static_cast<std::int32_t>(*device_id);
  const auto text = [&](std::string_view key) {
    const auto value = arg(event, key);
    return value ? as_string(*value) : std::string_view{};
  };
  if (const std::string_view op = text(kMemoryOpArg); !op.empty()) {
    record.owner_op = intern(op);
  }
  if (const std::string_view scope = text(kMemoryScopeArg); !scope.empty()) {
    record.scope = intern(scope);
  }
  const RowId row = tracks_.row_of(event);
  std::string pool(text(kMemoryPoolArg));
  if (pool.empty()) {
    pool = record.device < 0 ? "host memory" : "GPU " + std::to_string(record.device) + " memory";
  }
  builder_.add_memory_event(
      tracks_.named_track(row.pid, TrackKind::kMemoryPool, pool, record.device), record);
}

void ChromeImporter::add_counter(const RawEvent& event, TimeNs time) {
  if (!event.args || event.cat == kMemoryCounterCategory) return;
  const RowId row = tracks_.row_of(event);
  std::size_t series = 0;
  for (const dom::key_value_pair field : *event.args) {
    if (as_double(field.value)) ++series;
  }
  for (const dom::key_value_pair field : *event.args) {
    const auto value = as_double(field.value);
    if (!value) continue;
    // One series keeps the counter's name; several become "name.series" like Perfetto shows them.
    const std::string name = series == 1 ? std::string(event.name)
                                         : std::string(event.name) + "." + std::string(field.key);
    builder_.add_counter_sample(tracks_.named_track(row.pid, TrackKind::kCounter, name, -1), time,
                                *value);
  }
}

void ChromeImporter::add_flow_end(const RawEvent& event, TimeNs time) {
  if (!event.id) return;
  const auto id = event_id(*event.id);
  if (!id) return;
  PendingFlowEnd end;
  end.kind = flow_kind_from_chrome(event.cat);
  end.id = *id;
  if (const auto correlation = arg(event, "correlation")) {
    if (const auto number = as_integer(*correlation); number && *number >= 0) {
      end.correlation = static_cast<std::uint64_t>(*number);
    }
  }
  end.row = tracks_.row_of(event);
  end.time = time;
  end.is_start = event.phase == 's';
  // Chrome binds s and t to the enclosing slice; f to the next slice unless "bp":"e".
  end.binds_to_next = event.phase == 'f' && event.binding_point != "e";
  // A step ("t") only bends the arrow in a viewer; the model keeps its two ends.
  if (event.phase != 't') flow_ends_.push_back(end);
}

void ChromeImporter::read_event(const RawEvent& event) {
  if (event.phase == 'M' || event.phase == 0) return;
  const auto time = time_of(event.ts, event.ts_text);
  if (!time) {
    ++skipped_events_;
    return;
  }
  switch (event.phase) {
    case 'X': {
      const auto duration =
          event.dur ? micros_to_ns(*event.dur, event.dur_text) : std::optional<TimeNs>{0};
      if (!duration || *duration < 0 || *time > std::numeric_limits<TimeNs>::max() - *duration) {
        ++skipped_events_;
        return;
      }
      add_span(event, *time, *time + *duration);
      return;
    }
    case 'B':
    case 'E':
      begin_ends_[tracks_.row_of(event)].push_back(
          {*time, event.phase == 'B' ? simdjson::minify(event.object) : std::string{},
           event.phase == 'B'});
      return;
    case 'b':
    case 'e':
    case 'S':
    case 'F': {
      const auto id = event.id ? event_id(*event.id) : std::nullopt;
      if (!id) {
        ++skipped_events_;
        return;
      }
      const bool begin = event.phase == 'b' || event.phase == 'S';
      async_ends_[{tracks_.row_of(event).pid, std::string(event.cat), *id}].push_back(
          {*time, begin ? simdjson::minify(event.object) : std::string{}, begin});
      return;
    }
    case 'i':
    case 'I':
    case 'n':
    case 'R':
      if (event.name == kKinetoMemoryEventName) {
        add_memory_event(event, *time);
      } else {
        add_instant(event, *time);
      }
      return;
    case 'C':
      add_counter(event, *time);
      return;
    case 's':
    case 't':
    case 'f':
      add_flow_end(event, *time);
      return;
    default:
      return;  // object snapshots, samples, context events: nothing in the model
  }
}

RawEvent ChromeImporter::replay(const BeginEnd& begin) {
  dom::element element;
  // The text came from simdjson's own minify of a parsed object, so it parses again.
  if (event_parser_.parse(begin.text).get(element) != simdjson::SUCCESS) return {};
  return read_fields(object_of(element));
}

void ChromeImporter::match_begin_end() {
  for (auto& [row, ends] : begin_ends_) {
    match_pairs(
        ends, [&](const BeginEnd& begin, TimeNs end) { add_span(replay(begin), begin.time, end); });
  }
}

void ChromeImporter::match_async() {
  for (auto& [key, ends] : async_ends_) {
    const auto pid = key.pid;  // clang 14 cannot capture a structured binding
    match_pairs(ends, [&](const BeginEnd& opened, TimeNs end) {
      const RawEvent begin = replay(opened);
      // Async spans overlap freely, so each name gets its own row in its process.
      fill_span(begin, category_from_chrome(begin.cat, begin.name));
      span_.start = opened.time;
      span_.end = std::max(span_.start, end);
      const std::string row_name = std::string(begin.name) + " (async)";
      builder_.add_span(tracks_.named_track(pid, TrackKind::kHostThread, row_name, -1), span_);
    });
  }
}

void ChromeImporter::finish_flows() {
  // Each end bound to its span, in one flat vector sorted by kind and id: a trace has an id for
  // every kernel launch, too many for a map node and two vectors each.
  struct BoundEnd {
    std::uint64_t id = 0;
    std::uint64_t packed_ref = 0;
    std::uint64_t correlation = 0;
    std::uint32_t sequence = 0;
    FlowKind kind = FlowKind::kOther;
    bool is_start = true;
    bool has_correlation = false;
  };
  std::vector<BoundEnd> bound;
  if (!flow_ends_.empty()) {
    for (auto& [row, spans] : row_spans_)
      spans.prepare();
    bound.reserve(flow_ends_.size());
    for (const PendingFlowEnd& end : flow_ends_) {
      const auto spans = row_spans_.find(end.row);
      if (spans == row_spans_.end()) continue;  // nothing on that row to bind to
      const auto span =
          end.binds_to_next ? spans->second.next(end.time) : spans->second.enclosing(end.time);
      if (!span) continue;
      bound.push_back({end.id, span->pack(), end.correlation.value_or(0),
                       static_cast<std::uint32_t>(bound.size()), end.kind, end.is_start,
                       end.correlation.has_value()});
    }
  }
  // The spans and ends are no longer needed; the flows come next.
  row_spans_ = {};
  flow_ends_ = {};
  std::sort(bound.begin(), bound.end(), [](const BoundEnd& a, const BoundEnd& b) {
    return std::tie(a.kind, a.id, a.sequence) < std::tie(b.kind, b.id, b.sequence);
  });
  for (std::size_t first = 0; first < bound.size();) {
    std::size_t last = first;
    std::optional<std::uint64_t> correlation;
    while (last < bound.size() && bound[last].kind == bound[first].kind &&
           bound[last].id == bound[first].id) {
      if (bound[last].has_correlation) correlation = bound[last].correlation;
      ++last;
    }
    // The n-th start of an id pairs with its n-th finish, in file order.
    std::size_t start = first;
    std::size_t finish = first;
    for (;;) {
      while (start < last && !bound[start].is_start)
        ++start;
      while (finish < last && bound[finish].is_start)
        ++finish;
      if (start == last || finish == last) break;
      builder_.add_flow({bound[first].kind, correlation.value_or(bound[first].id),
                         EventRef::unpack(bound[start].packed_ref),
                         EventRef::unpack(bound[finish].packed_ref)});
      ++start;
      ++finish;
    }
    first = last;
  }
}

std::size_t ChromeImporter::read_window(const ParsedEventWindow& parsed) {
  // Names and sort orders are best known before a window's tracks are created (the rest arrive
  // in later windows and are applied at the end).
  for (const dom::object metadata : parsed.metadata_events)
    tracks_.read_metadata_event(read_fields(metadata));
  std::size_t index = 0;
  for (const dom::element element : parsed.events) {
    const std::size_t event_index = index++;
    if (element.type() != dom::element_type::OBJECT) {
      ++skipped_events_;
      continue;
    }
    RawEvent event = read_fields(object_of(element));
    event.ts_text = parsed.time_text.ts(event_index);
    event.dur_text = parsed.time_text.dur(event_index);
    read_event(event);
  }
  return index;
}

Trace ChromeImporter::import(ChromeEventWindows& windows, const LoadProgressCallback& progress) {
  TimeNs base_during_events = 0;
  {
    ChromeWindowPipeline pipeline(windows, /*background=*/true);
    const ParsedEventWindow* parsed = pipeline.next();
    read_top_level(windows.members_before());
    base_during_events = base_time_;
    for (; parsed != nullptr; parsed = pipeline.next()) {
      events_read_ += read_window(*parsed);
      if (progress) {
        progress({parsed->window.input_offset, windows.source().input_size(), events_read_});
      }
    }
  }
  // The window buffers and their parsers are gone here, before finalize needs the memory.
  // Kineto writes baseTimeNanoseconds after the events: the times read relative to the base
  // known then move by what the members after them add.
  read_top_level(windows.members_after());
  match_begin_end();
  match_async();
  finish_flows();
  tracks_.apply_names();
  if (base_time_ != base_during_events) builder_.shift_times(base_time_ - base_during_events);

  builder_.metadata().source_format = "chrome-json";
  builder_.metadata().lost_bytes = windows.lost_bytes();
  if (skipped_events_ != 0) {
    builder_.set_metadata_value("chrome.skipped_events", std::to_string(skipped_events_));
  }
  return builder_.finalize();
}

}  // namespace

bool looks_like_chrome_json(std::span<const std::uint8_t> head) {
  const std::string text = ChromeJsonInput::peek(head);
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && (text[first] == '[' || text[first] == '{');
}

namespace {

// The model rejects what no valid trace holds (spans nested 65536 deep); for an input file that
// is a format error of that file.
Trace import_stream(ChromeByteSource source, const ChromeJsonReadOptions& options) {
  const std::string source_name = source.source_name();
  try {
    ChromeEventWindows windows(source, std::max<std::size_t>(options.window_bytes, 1));
    return ChromeImporter(source_name).import(windows, options.progress);
  } catch (const FormatError&) {
    throw;
  } catch (const TraceError& error) {
    throw FormatError(source_name, 0, error.what());
  }
}

}  // namespace

Trace read_chrome_json(const ChromeJsonInput& input, const ChromeJsonReadOptions& options) {
  return import_stream(
      ChromeByteSource::over_memory(input.json(), input.source_name(), options.max_bytes), options);
}

Trace read_chrome_json(const std::filesystem::path& path, const ChromeJsonReadOptions& options) {
  return import_stream(ChromeByteSource::open_file(path, options.max_bytes), options);
}

}  // namespace tscope::trace
