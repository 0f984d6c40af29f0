#include "tscope/trace/chrome_json_reader.h"

#include <algorithm>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chrome_byte_source.h"
#include "chrome_event_windows.h"
#include "chrome_flows.h"
#include "chrome_json_document.h"
#include "chrome_json_values.h"
#include "chrome_raw_event.h"
#include "chrome_span_arg_keys.h"
#include "chrome_span_pairs.h"
#include "chrome_text_cache.h"
#include "chrome_track_map.h"
#include "chrome_window_pipeline.h"
#include "import_stats.h"
#include "tscope/trace/chrome_kineto_names.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace {
namespace {

using namespace chrome_json;

bool is_gpu_row(Category category) {
  return category == Category::kKernel || category == Category::kMemcpy ||
         category == Category::kMemset || category == Category::kGpuUserAnnotation ||
         category == Category::kSynchronization;
}

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

  // Reads on a second thread when `reading_thread` (the text is not small).
  Trace import(ChromeEventWindows& windows, const LoadProgressCallback& progress,
               bool reading_thread);

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

  std::optional<TimeNs> time_of(JsonValue value) const;
  StringId intern(std::string_view text) {
    return string_ids_.find_or_make(
        text, [this](std::string_view fresh) { return builder_.intern(fresh); });
  }
  // Fills span_ (and op_, for an op) from the event; add_filled_span adds it to the builder.
  void fill_span(const RawEvent& event);
  EventRef add_filled_span(std::uint32_t track);
  // category_from_chrome of the event, whose name has the id `name`.
  Category category_of(const RawEvent& event, StringId name);
  void reset_op();
  // An empty shape for the next input of op_, reusing the memory of an earlier op's.
  std::vector<std::int64_t>& next_input_shape();
  void append_scalar_arg(std::string_view key, JsonValue value, std::vector<Arg>& args);
  void keep_chrome_category(const RawEvent& event, Category category, std::vector<Arg>& args);

  const std::string& source_;
  TraceBuilder builder_;
  ChromeTrackMap tracks_{builder_};
  TimeNs base_time_ = 0;
  ImportStats stats_;  // what could not be used, by reason
  std::uint64_t events_read_ = 0;

  ChromeFlows flows_;

  // The track of the last memory event, by its process, device and "Pool" arg.
  struct PoolTrack {
    std::int64_t pid = 0;
    std::int32_t device = -1;
    std::string pool;
    std::uint32_t track = 0;
  };
  std::optional<PoolTrack> last_pool_;

  // The category of each span name (by its string id) with the "cat" it came with last: a name
  // keeps its category from event to event, and finding it compares the "cat" with each of
  // Kineto's and ours.
  struct NamedCategory {
    std::string cat;
    Category category = Category::kOther;
    bool known = false;
  };
  std::vector<NamedCategory> categories_;

  std::map<RowId, std::vector<BeginEnd>> begin_ends_;
  std::map<AsyncKey, std::vector<BeginEnd>> async_ends_;

  // Every string of the events goes to the builder's table through string_ids_.
  ChromeTextCache<StringId> string_ids_;

  SpanRecord span_;                      // reused so per-event argument vectors keep their capacity
  std::vector<RawEvent> window_events_;  // the current window's, reused
  // An op's detail, read into storage reused from op to op: its input shapes are a vector per
  // input, which would otherwise be allocated and freed for every op of the trace.
  OpInfo op_;
  bool has_op_ = false;
  std::vector<std::vector<std::int64_t>> spare_shapes_;
  // A begin event waiting for its end is kept as its own text (the window's document is gone by
  // then) and parsed again, alone, when matched.
  ChromeJsonDocument event_document_;
  ChromeJsonDocument members_document_;
};

std::optional<TimeNs> ChromeImporter::time_of(JsonValue value) const {
  const auto nanos = micros_to_ns(value);
  TimeNs time = 0;
  if (!nanos || __builtin_add_overflow(*nanos, base_time_, &time)) return std::nullopt;
  return time;
}

void ChromeImporter::read_top_level(const std::string& members) {
  if (members.empty()) return;
  const JsonValue parsed = members_document_.parse_copy(members);
  if (!parsed) {
    throw FormatError(source_, 0, std::string("not valid JSON: ") + members_document_.error());
  }
  for (const JsonField field : JsonObject(parsed)) {
    const std::string_view key = field.key;
    if (key == "traceEvents" || key == "schemaVersion") continue;
    if (key == "droppedEvents") {
      if (const auto dropped = as_integer(field.value); dropped && *dropped > 0) {
        builder_.add_dropped_events(static_cast<std::uint64_t>(*dropped));
      }
    } else if (key == "baseTimeNanoseconds") {
      // Kineto writes times relative to this base so that they keep nanosecond decimals.
      if (const auto base = as_integer(field.value)) base_time_ = *base;
    } else if (key == "distributedInfo" && field.value.is(JsonType::kObject)) {
      // The rank is the process's (Process::rank); the rest is kept under the metadata keys our
      // own distributed traces use (world_size, backend).
      for (const JsonField info : JsonObject(field.value)) {
        const std::string info_key(info.key);
        if (const auto number = as_integer(info.value)) {
          if (info_key == "rank") {
            tracks_.set_rank(static_cast<std::int32_t>(*number));
          } else {
            builder_.set_metadata_value(info_key, std::to_string(*number));
          }
        } else if (info.value.is(JsonType::kString)) {
          builder_.set_metadata_value(info_key, as_string(info.value));
        }
      }
    } else if (key == "deviceProperties" && field.value.is(JsonType::kArray)) {
      for (const JsonValue device : JsonArray(field.value)) {
        if (!device.is(JsonType::kObject)) continue;
        const JsonObject properties(device);
        const auto id = as_integer(properties.find("id"));
        const JsonValue name = properties.find("name");
        if (id && name) {
          builder_.set_metadata_value("device." + std::to_string(*id) + ".name", as_string(name));
          if (const auto memory = as_integer(properties.find("totalGlobalMem"))) {
            builder_.set_metadata_value("device." + std::to_string(*id) + ".total_memory",
                                        std::to_string(*memory));
          }
        }
      }
    } else if (field.value.is(JsonType::kString)) {
      builder_.set_metadata_value(key, as_string(field.value));
    } else if (const auto number = as_integer(field.value)) {
      builder_.set_metadata_value(key, std::to_string(*number));
    }
  }
}

Category ChromeImporter::category_of(const RawEvent& event, StringId name) {
  if (name >= categories_.size()) categories_.resize(name + 1);
  NamedCategory& known = categories_[name];
  if (!known.known || known.cat != event.cat) {
    known = {std::string(event.cat), category_from_chrome(event.cat, event.name), true};
  }
  return known.category;
}

void ChromeImporter::fill_span(const RawEvent& event) {
  span_.name = intern(event.name);
  const Category category = category_of(event, span_.name);
  span_.category = category;
  span_.correlation_id = 0;
  span_.external_correlation_id = 0;
  span_.kernel.reset();
  span_.copy.reset();
  span_.args.clear();
  reset_op();
  keep_chrome_category(event, category, span_.args);
  if (!event.args) return;

  // One pass over the args: known keys become structured fields, other scalars stay args.
  KernelInfo kernel;
  CopyInfo copy;
  OpInfo& op = op_;
  bool& has_op = has_op_;
  std::optional<std::uint64_t> shared_total;
  for (const JsonField field : event.args) {
    const std::string_view key = field.key;
    const JsonValue value = field.value;
    const auto integer = [&] { return as_integer(value); };
    switch (span_arg_key(key)) {
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
        if (!value.is(JsonType::kArray)) break;
        for (const JsonValue input : JsonArray(value)) {
          std::vector<std::int64_t>& shape = next_input_shape();
          if (!input.is(JsonType::kArray)) continue;
          for (const JsonValue extent : JsonArray(input)) {
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
}

void ChromeImporter::reset_op() {
  for (std::vector<std::int64_t>& shape : op_.input_shapes)
    spare_shapes_.push_back(std::move(shape));
  std::vector<std::vector<std::int64_t>> shapes = std::move(op_.input_shapes);
  shapes.clear();
  op_ = OpInfo{};
  op_.input_shapes = std::move(shapes);
  has_op_ = false;
}

std::vector<std::int64_t>& ChromeImporter::next_input_shape() {
  std::vector<std::int64_t> shape;
  if (!spare_shapes_.empty()) {
    shape = std::move(spare_shapes_.back());
    spare_shapes_.pop_back();
    shape.clear();
  }
  return op_.input_shapes.emplace_back(std::move(shape));
}

EventRef ChromeImporter::add_filled_span(std::uint32_t track) {
  // The op lends its storage to the record for the call and takes it back, so it is reused.
  if (has_op_) std::swap(span_.op.emplace(), op_);
  const EventRef ref = builder_.add_span(track, span_);
  if (span_.op) std::swap(*span_.op, op_);
  span_.op.reset();
  return ref;
}

void ChromeImporter::keep_chrome_category(const RawEvent& event, Category category,
                                          std::vector<Arg>& args) {
  if (category != Category::kOther || event.cat.empty() || event.cat == chrome_category(category)) {
    return;
  }
  args.push_back({intern(kChromeCategoryArg), StringArg{intern(event.cat)}});
}

void ChromeImporter::append_scalar_arg(std::string_view key, JsonValue value,
                                       std::vector<Arg>& args) {
  switch (value.type()) {
    case JsonType::kInt64:
      args.push_back({intern(key), value.int64()});
      break;
    case JsonType::kUint64:
    case JsonType::kDouble:
      args.push_back({intern(key), *as_double(value)});
      break;
    case JsonType::kString:
      args.push_back({intern(key), StringArg{intern(value.text())}});
      break;
    case JsonType::kBool:
      args.push_back({intern(key), std::int64_t{value.boolean()}});
      break;
    default:
      break;  // nested objects and arrays have no place in the model
  }
}

void ChromeImporter::add_span(const RawEvent& event, TimeNs start, TimeNs end) {
  fill_span(event);
  const Category category = span_.category;
  span_.start = start;
  span_.end = std::max(start, end);
  const RowId row = tracks_.row_of(event);
  std::uint32_t track = 0;
  if (is_gpu_row(category)) {
    // pid = device and tid = stream on Kineto's GPU rows; the args say so explicitly.
    const auto device_number = as_integer(arg(event, "device"));
    const auto stream_number = as_integer(arg(event, "stream"));
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
  const EventRef ref = add_filled_span(track);
  // Flow events may come in any later window, so every row keeps its spans until the end.
  flows_.add_span(row, span_.start, span_.end, ref);
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
  for (const JsonField field : event.args)
    append_scalar_arg(field.key, field.value, instant.args);
  builder_.add_instant(tracks_.host_track(tracks_.row_of(event)), instant);
}

void ChromeImporter::add_memory_event(const RawEvent& event, TimeNs time) {
  // The args in one pass, each the first of its key as arg() would find it.
  JsonValue bytes_value;
  JsonValue address;
  JsonValue total_allocated;
  JsonValue total_reserved;
  JsonValue device_type_value;
  JsonValue device_id_value;
  JsonValue device_value;
  JsonValue op;
  JsonValue scope;
  JsonValue pool_value;
  for (const JsonField field : event.args) {
    const std::string_view key = field.key;
    JsonValue* const slot = key == "Bytes"             ? &bytes_value
                            : key == "Addr"            ? &address
                            : key == "Total Allocated" ? &total_allocated
                            : key == "Total Reserved"  ? &total_reserved
                            : key == "Device Type"     ? &device_type_value
                            : key == "Device Id"       ? &device_id_value
                            : key == "Device"          ? &device_value
                            : key == kMemoryOpArg      ? &op
                            : key == kMemoryScopeArg   ? &scope
                            : key == kMemoryPoolArg    ? &pool_value
                                                       : nullptr;
    if (slot != nullptr && !*slot) *slot = field.value;
  }
  MemoryRecord record;
  record.time = time;
  const std::int64_t bytes = as_integer(bytes_value).value_or(0);
  record.action = bytes < 0 ? MemoryAction::kFree : MemoryAction::kAlloc;
  record.bytes =
      bytes < 0 ? static_cast<std::uint64_t>(-(bytes + 1)) + 1 : static_cast<std::uint64_t>(bytes);
  record.address = event_id(address).value_or(0);
  record.total_allocated = non_negative(as_integer(total_allocated));
  record.total_reserved = non_negative(as_integer(total_reserved));
  // Device Type 0 is the CPU; CUDA devices are numbered by Device Id.
  const std::int64_t device_type = as_integer(device_type_value).value_or(1);
  auto device_id = as_integer(device_id_value);
  if (!device_id) device_id = as_integer(device_value);
  record.device = device_type == 0 || !device_id ? -1 : static_cast<std::int32_t>(*device_id);
  if (const std::string_view text = as_string(op); !text.empty()) record.owner_op = intern(text);
  if (const std::string_view text = as_string(scope); !text.empty()) record.scope = intern(text);
  const RowId row = tracks_.row_of(event);
  const std::string_view pool = as_string(pool_value);
  // Memory events of one pool mostly come together; its track is kept at hand.
  if (!last_pool_ || last_pool_->pid != row.pid || last_pool_->device != record.device ||
      last_pool_->pool != pool) {
    const std::string name = !pool.empty() ? std::string(pool)
                             : record.device < 0
                                 ? std::string("host memory")
                                 : "GPU " + std::to_string(record.device) + " memory";
    last_pool_ =
        PoolTrack{row.pid, record.device, std::string(pool),
                  tracks_.named_track(row.pid, TrackKind::kMemoryPool, name, record.device)};
  }
  builder_.add_memory_event(last_pool_->track, record);
}

void ChromeImporter::add_counter(const RawEvent& event, TimeNs time) {
  if (!event.args || event.cat == kMemoryCounterCategory) return;
  const RowId row = tracks_.row_of(event);
  std::size_t series = 0;
  for (const JsonField field : event.args) {
    if (as_double(field.value)) ++series;
  }
  for (const JsonField field : event.args) {
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
  // A step ("t") only bends the arrow in a viewer; the model keeps its two ends.
  if (event.phase == 't') return;
  const auto id = event_id(event.id);
  if (!id) return;
  FlowEnd end;
  end.kind = flow_kind_from_chrome(event.cat);
  end.id = *id;
  if (const auto number = as_integer(arg(event, "correlation")); number && *number >= 0) {
    end.correlation = static_cast<std::uint64_t>(*number);
  }
  end.time = time;
  end.is_start = event.phase == 's';
  // Chrome binds s and t to the enclosing slice; f to the next slice unless "bp":"e".
  end.binds_to_next = event.phase == 'f' && event.binding_point != "e";
  flows_.add_end(tracks_.row_of(event), end);
}

void ChromeImporter::read_event(const RawEvent& event) {
  if (event.phase == 'M' || event.phase == 0) return;
  const auto time = time_of(event.ts);
  if (!time) {
    stats_.add("chrome.invalid_timestamp");
    return;
  }
  switch (event.phase) {
    case 'X': {
      const auto duration = event.dur ? micros_to_ns(event.dur) : std::optional<TimeNs>{0};
      if (!duration || *duration < 0 || *time > std::numeric_limits<TimeNs>::max() - *duration) {
        stats_.add("chrome.invalid_duration");
        return;
      }
      add_span(event, *time, *time + *duration);
      return;
    }
    case 'B':
    case 'E':
      begin_ends_[tracks_.row_of(event)].push_back(
          {*time, event.phase == 'B' ? std::string(event.object.text()) : std::string{},
           event.phase == 'B'});
      return;
    case 'b':
    case 'e':
    case 'S':
    case 'F': {
      const auto id = event_id(event.id);
      if (!id) {
        stats_.add("chrome.async_without_id");
        return;
      }
      const bool begin = event.phase == 'b' || event.phase == 'S';
      async_ends_[{tracks_.row_of(event).pid, std::string(event.cat), *id}].push_back(
          {*time, begin ? std::string(event.object.text()) : std::string{}, begin});
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
  // The text is the event's own, parsed before, so it parses again.
  const JsonValue element = event_document_.parse_copy(begin.text);
  if (!element) return {};
  return read_fields(element);
}

void ChromeImporter::match_begin_end() {
  for (auto& [row, ends] : begin_ends_) {
    const Unpaired unpaired = match_pairs(
        ends, [&](const BeginEnd& begin, TimeNs end) { add_span(replay(begin), begin.time, end); });
    stats_.add("chrome.end_without_begin", unpaired.ends);
    stats_.add("chrome.begin_without_end", unpaired.begins);
  }
}

void ChromeImporter::match_async() {
  for (auto& [key, ends] : async_ends_) {
    const auto pid = key.pid;  // clang 14 cannot capture a structured binding
    const Unpaired unpaired = match_pairs(ends, [&](const BeginEnd& opened, TimeNs end) {
      const RawEvent begin = replay(opened);
      // Async spans overlap freely, so each name gets its own row in its process.
      fill_span(begin);
      span_.start = opened.time;
      span_.end = std::max(span_.start, end);
      const std::string row_name = std::string(begin.name) + " (async)";
      add_filled_span(tracks_.named_track(pid, TrackKind::kHostThread, row_name, -1));
    });
    stats_.add("chrome.async_end_without_begin", unpaired.ends);
    stats_.add("chrome.async_begin_without_end", unpaired.begins);
  }
}

std::size_t ChromeImporter::read_window(const ParsedEventWindow& parsed) {
  // Names and sort orders are best known before a window's tracks are created (the rest arrive
  // in later windows and are applied at the end).
  window_events_.clear();
  for (const JsonValue element : JsonArray(parsed.events))
    window_events_.push_back(read_fields(element));
  for (const RawEvent& event : window_events_) {
    if (event.metadata) tracks_.read_metadata_event(event);
  }
  for (const RawEvent& event : window_events_) {
    if (!event.object.is(JsonType::kObject)) {
      stats_.add("chrome.event_not_an_object");
      continue;
    }
    read_event(event);
  }
  return window_events_.size();
}

Trace ChromeImporter::import(ChromeEventWindows& windows, const LoadProgressCallback& progress,
                             bool reading_thread) {
  TimeNs base_during_events = 0;
  {
    ChromeWindowPipeline pipeline(windows, /*background=*/reading_thread);
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
  flows_.finish(builder_);
  tracks_.apply_names();
  if (base_time_ != base_during_events) builder_.shift_times(base_time_ - base_during_events);

  builder_.metadata().source_format = "chrome-json";
  builder_.metadata().lost_bytes = windows.lost_bytes();
  stats_.write_to(builder_);
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
    // A text of a few events (a fuzzer's input) is read on this thread: starting and joining a
    // reading thread would cost more than the import. Above ChromeByteSource::kSmallText, the
    // thread pays even for one window (measured on a 777 KB trace, imported over and over: 9.3 ms
    // with it, 15.6 ms without, which faulted 2.5 MB of fresh pages into the calling thread's
    // malloc arena on every import where the reading thread's arena kept them). A small gzip
    // input is inflated here to learn its length, which also sizes its buffers to its text.
    const bool reading_thread = !source.text_ends_within(ChromeByteSource::kSmallText);
    ChromeEventWindows windows(source, std::max<std::size_t>(options.window_bytes, 1),
                               options.max_event_bytes);
    return ChromeImporter(source_name).import(windows, options.progress, reading_thread);
  } catch (const FormatError&) {
    throw;
  } catch (const TraceError& error) {
    throw FormatError(source_name, 0, error.what());
  } catch (const std::bad_alloc&) {
    // The reading thread has stopped by now (the pipeline joined it while unwinding), so the
    // offset it reached is this thread's to read.
    throw out_of_memory_reading(source_name, source.input_offset());
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
