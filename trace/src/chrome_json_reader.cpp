#include "tscope/trace/chrome_json_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chrome_flow_binder.h"
#include "tscope/trace/chrome_kineto_names.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace {
namespace {

namespace dom = simdjson::dom;

// A truncated file is retried at this many earlier cut points before giving up, so a file cut
// inside a deeply nested event still loads without unbounded re-parsing.
constexpr int kMaxSalvageAttempts = 32;

// Copy out of simdjson's result wrapper: a range-for over a temporary wrapper's value dangles.
// Callers check the element's type first.
dom::array array_of(dom::element value) { return value.get_array().value_unsafe(); }
dom::object object_of(dom::element value) { return value.get_object().value_unsafe(); }

std::optional<std::int64_t> as_integer(dom::element value) {
  switch (value.type()) {
    case dom::element_type::INT64: return value.get_int64().value_unsafe();
    case dom::element_type::UINT64: {
      const std::uint64_t number = value.get_uint64().value_unsafe();
      if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return std::nullopt;
      }
      return static_cast<std::int64_t>(number);
    }
    case dom::element_type::DOUBLE: {
      const double number = value.get_double().value_unsafe();
      if (!(std::abs(number) < 9.2e18)) return std::nullopt;
      return static_cast<std::int64_t>(number);
    }
    case dom::element_type::STRING: {
      // Kineto writes some ids ("tid": "25738") as strings.
      const std::string_view text = value.get_string().value_unsafe();
      std::int64_t number = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
      return number;
    }
    default: return std::nullopt;
  }
}

std::optional<double> as_double(dom::element value) {
  switch (value.type()) {
    case dom::element_type::INT64: return static_cast<double>(value.get_int64().value_unsafe());
    case dom::element_type::UINT64: return static_cast<double>(value.get_uint64().value_unsafe());
    case dom::element_type::DOUBLE: return value.get_double().value_unsafe();
    default: return std::nullopt;
  }
}

// Chrome times are microseconds, integral or with nanosecond decimals.
std::optional<TimeNs> micros_to_ns(dom::element value) {
  constexpr std::int64_t kLimit = std::numeric_limits<std::int64_t>::max() / 1000;
  switch (value.type()) {
    case dom::element_type::INT64: {
      const std::int64_t micros = value.get_int64().value_unsafe();
      if (micros > kLimit || micros < -kLimit) return std::nullopt;
      return micros * 1000;
    }
    case dom::element_type::UINT64: {
      const std::uint64_t micros = value.get_uint64().value_unsafe();
      if (micros > static_cast<std::uint64_t>(kLimit)) return std::nullopt;
      return static_cast<std::int64_t>(micros) * 1000;
    }
    case dom::element_type::DOUBLE: {
      const double nanos = value.get_double().value_unsafe() * 1000.0;
      if (!(std::abs(nanos) < 9.2e18)) return std::nullopt;
      return std::llround(nanos);
    }
    default: return std::nullopt;
  }
}

// Flow and async ids: numbers, or strings such as "0xaf7df77f7a3195dd".
std::optional<std::uint64_t> event_id(dom::element value) {
  if (value.type() == dom::element_type::UINT64) return value.get_uint64().value_unsafe();
  if (value.type() == dom::element_type::STRING) {
    std::string_view text = value.get_string().value_unsafe();
    int base = 10;
    if (text.starts_with("0x") || text.starts_with("0X")) {
      text.remove_prefix(2);
      base = 16;
    }
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number, base);
    if (error == std::errc{} && end == text.data() + text.size()) return number;
    return std::hash<std::string_view>{}(value.get_string().value_unsafe());
  }
  if (const auto number = as_integer(value)) return static_cast<std::uint64_t>(*number);
  return std::nullopt;
}

std::string_view as_string(dom::element value) {
  return value.type() == dom::element_type::STRING ? value.get_string().value_unsafe()
                                                   : std::string_view{};
}

// The fields of one event that the importer reads, gathered in one pass over its keys.
struct RawEvent {
  char phase = 0;
  std::string_view name;
  std::string_view cat;
  std::string_view binding_point;
  std::optional<dom::element> pid;
  std::optional<dom::element> tid;
  std::optional<dom::element> ts;
  std::optional<dom::element> dur;
  std::optional<dom::element> id;
  std::optional<dom::object> args;
};

RawEvent read_fields(dom::object object) {
  RawEvent event;
  for (const dom::key_value_pair field : object) {
    const std::string_view key = field.key;
    if (key == "ph") {
      const std::string_view phase = as_string(field.value);
      if (phase.size() == 1) event.phase = phase[0];
    } else if (key == "ts") {
      event.ts = field.value;
    } else if (key == "name") {
      event.name = as_string(field.value);
    } else if (key == "cat") {
      event.cat = as_string(field.value);
    } else if (key == "pid") {
      event.pid = field.value;
    } else if (key == "tid") {
      event.tid = field.value;
    } else if (key == "dur") {
      event.dur = field.value;
    } else if (key == "args") {
      if (field.value.type() == dom::element_type::OBJECT) {
        event.args = object_of(field.value);
      }
    } else if (key == "id") {
      event.id = field.value;
    } else if (key == "bp") {
      event.binding_point = as_string(field.value);
    } else if (key == "id2") {
      // {"local": "0x1"} or {"global": "0x1"}: the scope of an async id.
      if (field.value.type() == dom::element_type::OBJECT) {
        for (const dom::key_value_pair scoped : object_of(field.value)) {
          event.id = scoped.value;
        }
      }
    }
  }
  return event;
}

std::optional<dom::element> arg(const RawEvent& event, std::string_view key) {
  if (!event.args) return std::nullopt;
  dom::element value;
  if (event.args->at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

std::array<std::uint32_t, 3> dim3(dom::element value) {
  std::array<std::uint32_t, 3> dims{1, 1, 1};
  if (value.type() != dom::element_type::ARRAY) return dims;
  std::size_t axis = 0;
  for (const dom::element item : array_of(value)) {
    if (axis == dims.size()) break;
    const auto number = as_integer(item);
    if (number && *number >= 0 && *number <= std::numeric_limits<std::uint32_t>::max()) {
      dims[axis] = static_cast<std::uint32_t>(*number);
    }
    ++axis;
  }
  return dims;
}

std::vector<std::uint64_t> id_list(dom::element value) {
  std::vector<std::uint64_t> ids;
  if (value.type() != dom::element_type::ARRAY) return ids;
  for (const dom::element item : array_of(value)) {
    if (const auto number = as_integer(item)) ids.push_back(static_cast<std::uint64_t>(*number));
  }
  return ids;
}

std::uint64_t non_negative(const std::optional<std::int64_t>& value) {
  return value && *value > 0 ? static_cast<std::uint64_t>(*value) : 0;
}

bool is_gpu_row(Category category) {
  return category == Category::kKernel || category == Category::kMemcpy ||
         category == Category::kMemset || category == Category::kGpuUserAnnotation ||
         category == Category::kSynchronization;
}

template <typename Enum, int kCount>
std::optional<Enum> enum_from_string(std::string_view text) {
  for (int index = 0; index < kCount; ++index) {
    if (to_string(static_cast<Enum>(index)) == text) return static_cast<Enum>(index);
  }
  return std::nullopt;
}

// A Chrome row (pid, tid), numeric or named; numeric strings count as numbers so that "25738"
// and 25738 are one thread, as in the 2021 Kineto schema.
struct RowId {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  auto operator<=>(const RowId&) const = default;
};

struct BeginEnd {
  TimeNs time = 0;
  RawEvent event;
  bool begin = true;
};

struct PendingFlowEnd {
  FlowKind kind = FlowKind::kOther;
  std::uint64_t id = 0;
  bool is_start = true;
  bool binds_to_next = false;
  RowId row;
  TimeNs time = 0;
};

// Chrome pairs the ends of an async span by category and id within a process.
struct AsyncKey {
  std::int64_t pid = 0;
  std::string_view cat;
  std::uint64_t id = 0;
  auto operator<=>(const AsyncKey&) const = default;
};

class ChromeImporter {
 public:
  explicit ChromeImporter(const std::string& source) : source_(source) {}

  Trace import(dom::element root, std::uint64_t lost_bytes);

 private:
  void read_top_level(dom::object root);
  void read_metadata_event(const RawEvent& event);
  void read_event(const RawEvent& event);
  void add_span(const RawEvent& event, TimeNs start, TimeNs end);
  void add_instant(const RawEvent& event, TimeNs time);
  void add_memory_event(const RawEvent& event, TimeNs time);
  void add_counter(const RawEvent& event, TimeNs time);
  void add_flow_end(const RawEvent& event, TimeNs time);
  void match_begin_end();
  void match_async();
  void finish_flows();

  std::optional<TimeNs> time_of(const std::optional<dom::element>& value) const;
  std::int64_t row_number(const std::optional<dom::element>& value);
  RowId row_of(const RawEvent& event);
  std::uint32_t process_for(std::int64_t pid, bool gpu);
  std::uint32_t host_track(RowId row);
  std::uint32_t gpu_track(std::int64_t device, std::int64_t stream);
  std::uint32_t named_track(std::int64_t pid, TrackKind kind, std::string_view name,
                            std::int32_t device);
  void fill_span(const RawEvent& event, Category category);
  void append_scalar_arg(std::string_view key, dom::element value, std::vector<Arg>& args);

  const std::string& source_;
  TraceBuilder builder_;
  TimeNs base_time_ = 0;
  std::int32_t rank_ = -1;
  std::uint64_t skipped_events_ = 0;

  // Names of non-numeric pids and tids, numbered from kNamedRowBase down.
  static constexpr std::int64_t kNamedRowBase = std::numeric_limits<std::int64_t>::min() / 2;
  std::unordered_map<std::string_view, std::int64_t> named_rows_;
  std::unordered_map<std::int64_t, std::string_view> row_names_;
  static bool is_named_row(std::int64_t id) { return id <= kNamedRowBase; }

  std::map<std::int64_t, std::string_view> process_names_;
  std::map<std::int64_t, std::string_view> process_labels_;
  std::map<std::int64_t, std::int32_t> process_sort_;
  std::map<RowId, std::string_view> thread_names_;
  std::map<RowId, std::int32_t> thread_sort_;

  std::map<std::pair<std::int64_t, bool>, std::uint32_t> processes_;
  std::map<RowId, std::uint32_t> host_tracks_;
  std::optional<std::pair<RowId, std::uint32_t>> last_host_row_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> gpu_tracks_;
  std::map<std::tuple<std::int64_t, TrackKind, std::string, std::int32_t>, std::uint32_t>
      named_tracks_;
  // The spans of each Chrome row, kept only when the file has flow events to bind to them.
  bool has_flows_ = false;
  std::map<RowId, ChromeFlowBinder> row_spans_;

  std::map<RowId, std::vector<BeginEnd>> begin_ends_;
  std::map<AsyncKey, std::vector<BeginEnd>> async_ends_;
  std::vector<PendingFlowEnd> flow_ends_;

  SpanRecord span_;  // reused so per-event argument vectors keep their capacity
};

std::optional<TimeNs> ChromeImporter::time_of(const std::optional<dom::element>& value) const {
  if (!value) return std::nullopt;
  const auto nanos = micros_to_ns(*value);
  TimeNs time = 0;
  if (!nanos || __builtin_add_overflow(*nanos, base_time_, &time)) return std::nullopt;
  return time;
}

std::int64_t ChromeImporter::row_number(const std::optional<dom::element>& value) {
  if (!value) return 0;
  if (const auto number = as_integer(*value)) return *number;
  const std::string_view text = as_string(*value);
  const auto [found, inserted] =
      named_rows_.try_emplace(text, kNamedRowBase - static_cast<std::int64_t>(named_rows_.size()));
  if (inserted) row_names_[found->second] = text;
  return found->second;
}

RowId ChromeImporter::row_of(const RawEvent& event) {
  return {row_number(event.pid), row_number(event.tid)};
}

std::uint32_t ChromeImporter::process_for(std::int64_t pid, bool gpu) {
  const auto key = std::make_pair(pid, gpu);
  if (const auto found = processes_.find(key); found != processes_.end()) return found->second;
  Process process;
  std::string name;
  if (const auto label = process_labels_.find(pid); gpu && label != process_labels_.end()) {
    name = label->second;  // Kineto labels device rows "GPU 0"
  } else if (const auto named = process_names_.find(pid); named != process_names_.end()) {
    name = named->second;
  } else if (const auto text = row_names_.find(pid); text != row_names_.end()) {
    name = text->second;
  } else {
    name = (gpu ? "GPU " : "process ") + std::to_string(pid);
  }
  process.pid = is_named_row(pid) ? -1 : pid;
  process.name = builder_.intern(name);
  process.rank = gpu ? -1 : rank_;
  if (const auto sort = process_sort_.find(pid); sort != process_sort_.end()) {
    process.sort_index = sort->second;
  }
  const std::uint32_t index = builder_.add_process(process);
  processes_.emplace(key, index);
  return index;
}

std::uint32_t ChromeImporter::host_track(RowId row) {
  // Consecutive events mostly share a row.
  if (last_host_row_ && last_host_row_->first == row) return last_host_row_->second;
  if (const auto found = host_tracks_.find(row); found != host_tracks_.end()) {
    last_host_row_ = *found;
    return found->second;
  }
  TrackInfo info;
  info.kind = TrackKind::kHostThread;
  info.process = process_for(row.pid, false);
  info.thread_id = row.tid;
  std::string name;
  if (const auto named = thread_names_.find(row); named != thread_names_.end()) {
    name = named->second;
  } else if (const auto text = row_names_.find(row.tid); text != row_names_.end()) {
    name = text->second;
    info.thread_id = -1;
  } else {
    name = "thread " + std::to_string(row.tid);
  }
  info.name = builder_.intern(name);
  if (const auto sort = thread_sort_.find(row); sort != thread_sort_.end()) {
    info.sort_index = sort->second;
  }
  const std::uint32_t track = builder_.add_track(info);
  host_tracks_.emplace(row, track);
  return track;
}

std::uint32_t ChromeImporter::gpu_track(std::int64_t device, std::int64_t stream) {
  const auto key = std::make_pair(device, stream);
  std::uint32_t track = 0;
  if (const auto found = gpu_tracks_.find(key); found != gpu_tracks_.end()) {
    track = found->second;
  } else {
    TrackInfo info;
    info.kind = TrackKind::kGpuStream;
    info.process = process_for(device, true);
    info.device = static_cast<std::int32_t>(device);
    info.stream = stream;
    const RowId kineto_row{device, stream};
    const auto named = thread_names_.find(kineto_row);
    info.name = builder_.intern(named != thread_names_.end()
                                    ? std::string(named->second)
                                    : "stream " + std::to_string(stream));
    if (const auto sort = thread_sort_.find(kineto_row); sort != thread_sort_.end()) {
      info.sort_index = sort->second;
    }
    track = builder_.add_track(info);
    gpu_tracks_.emplace(key, track);
  }
  return track;
}

std::uint32_t ChromeImporter::named_track(std::int64_t pid, TrackKind kind, std::string_view name,
                                          std::int32_t device) {
  auto key = std::make_tuple(pid, kind, std::string(name), device);
  if (const auto found = named_tracks_.find(key); found != named_tracks_.end()) {
    return found->second;
  }
  TrackInfo info;
  info.kind = kind;
  info.process = process_for(pid, false);
  info.device = device;
  info.name = builder_.intern(name);
  const std::uint32_t track = builder_.add_track(info);
  named_tracks_.emplace(std::move(key), track);
  return track;
}

void ChromeImporter::read_top_level(dom::object root) {
  for (const dom::key_value_pair field : root) {
    const std::string_view key = field.key;
    if (key == "traceEvents" || key == "schemaVersion" || key == "displayTimeUnit") continue;
    if (key == "droppedEvents") {
      if (const auto dropped = as_integer(field.value); dropped && *dropped > 0) {
        builder_.add_dropped_events(static_cast<std::uint64_t>(*dropped));
      }
    } else if (key == "baseTimeNanoseconds") {
      // Kineto writes times relative to this base so that they keep nanosecond decimals.
      if (const auto base = as_integer(field.value)) base_time_ = *base;
    } else if (key == "distributedInfo" && field.value.type() == dom::element_type::OBJECT) {
      dom::element rank;
      if (field.value["rank"].get(rank) == simdjson::SUCCESS) {
        if (const auto number = as_integer(rank)) rank_ = static_cast<std::int32_t>(*number);
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
            builder_.set_metadata_value("device." + std::to_string(*as_integer(id)) + ".total_memory",
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

void ChromeImporter::read_metadata_event(const RawEvent& event) {
  const RowId row = row_of(event);
  const auto value = [&](std::string_view key) { return arg(event, key); };
  if (event.name == "process_name") {
    if (const auto name = value("name")) process_names_[row.pid] = as_string(*name);
  } else if (event.name == "process_labels") {
    if (const auto labels = value("labels")) process_labels_[row.pid] = as_string(*labels);
  } else if (event.name == "process_sort_index") {
    if (const auto sort = value("sort_index"); sort && as_integer(*sort)) {
      process_sort_[row.pid] = static_cast<std::int32_t>(*as_integer(*sort));
    }
  } else if (event.name == "thread_name") {
    if (const auto name = value("name")) thread_names_[row] = as_string(*name);
  } else if (event.name == "thread_sort_index") {
    if (const auto sort = value("sort_index"); sort && as_integer(*sort)) {
      thread_sort_[row] = static_cast<std::int32_t>(*as_integer(*sort));
    }
  }
}

void ChromeImporter::fill_span(const RawEvent& event, Category category) {
  span_.name = builder_.intern(event.name);
  span_.category = category;
  span_.correlation_id = 0;
  span_.external_correlation_id = 0;
  span_.kernel.reset();
  span_.copy.reset();
  span_.op.reset();
  span_.args.clear();
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
    if (key == "correlation") {
      span_.correlation_id = static_cast<std::uint32_t>(non_negative(integer()));
    } else if (key == "External id" || key == "external id") {
      span_.external_correlation_id = non_negative(integer());
    } else if (key == "grid") {
      kernel.grid = dim3(value);
    } else if (key == "block") {
      kernel.block = dim3(value);
    } else if (key == "registers per thread") {
      kernel.registers_per_thread = static_cast<std::uint32_t>(non_negative(integer()));
    } else if (key == "shared memory") {
      shared_total = non_negative(integer());
    } else if (key == "static shared memory") {
      kernel.static_shared_bytes = static_cast<std::uint32_t>(non_negative(integer()));
    } else if (key == "dynamic shared memory") {
      kernel.dynamic_shared_bytes = static_cast<std::uint32_t>(non_negative(integer()));
    } else if (key == "device") {
      kernel.device = static_cast<std::int32_t>(integer().value_or(-1));
    } else if (key == "stream") {
      kernel.stream = integer().value_or(-1);
    } else if (key == "bytes") {
      copy.bytes = non_negative(integer());
    } else if (key == "copy kind") {
      copy.direction =
          enum_from_string<CopyDirection, 6>(as_string(value)).value_or(CopyDirection::kUnknown);
    } else if (key == "src memory") {
      copy.source = enum_from_string<MemoryKind, 5>(as_string(value)).value_or(MemoryKind::kUnknown);
    } else if (key == "dst memory") {
      copy.destination =
          enum_from_string<MemoryKind, 5>(as_string(value)).value_or(MemoryKind::kUnknown);
    } else if (key == "Input Dims") {
      has_op = true;
      if (value.type() != dom::element_type::ARRAY) continue;
      for (const dom::element input : array_of(value)) {
        auto& shape = op.input_shapes.emplace_back();
        if (input.type() != dom::element_type::ARRAY) continue;
        for (const dom::element extent : array_of(input)) {
          if (const auto number = as_integer(extent)) shape.push_back(*number);
        }
      }
    } else if (key == "flops") {
      op.flops = non_negative(integer());
      has_op = true;
    } else if (key == "bytes read") {
      op.bytes_read = non_negative(integer());
      has_op = true;
    } else if (key == "bytes written") {
      op.bytes_written = non_negative(integer());
      has_op = true;
    } else if (key == "tensors read") {
      op.tensors_read = id_list(value);
      has_op = true;
    } else if (key == "tensors written") {
      op.tensors_written = id_list(value);
      has_op = true;
    } else {
      append_scalar_arg(key, value, span_.args);
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
    const CopyInfo named = category == Category::kMemcpy ? copy_from_kineto_name(event.name)
                                                          : CopyInfo{};
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

void ChromeImporter::append_scalar_arg(std::string_view key, dom::element value,
                                       std::vector<Arg>& args) {
  switch (value.type()) {
    case dom::element_type::INT64:
      args.push_back({builder_.intern(key), value.get_int64().value_unsafe()});
      break;
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE:
      args.push_back({builder_.intern(key), *as_double(value)});
      break;
    case dom::element_type::STRING:
      args.push_back({builder_.intern(key), StringArg{builder_.intern(as_string(value))}});
      break;
    case dom::element_type::BOOL:
      args.push_back({builder_.intern(key), std::int64_t{value.get_bool().value_unsafe()}});
      break;
    default: break;  // nested objects and arrays have no place in the model
  }
}

void ChromeImporter::add_span(const RawEvent& event, TimeNs start, TimeNs end) {
  const Category category = category_from_chrome(event.cat, event.name);
  fill_span(event, category);
  span_.start = start;
  span_.end = std::max(start, end);
  const RowId row = row_of(event);
  std::uint32_t track = 0;
  if (is_gpu_row(category)) {
    // pid = device and tid = stream on Kineto's GPU rows; the args say so explicitly.
    const auto device = arg(event, "device");
    const auto stream = arg(event, "stream");
    const auto device_number = device ? as_integer(*device) : std::optional<std::int64_t>{};
    const auto stream_number = stream ? as_integer(*stream) : std::optional<std::int64_t>{};
    if (device_number && stream_number) {
      track = gpu_track(*device_number, *stream_number);
    } else if (row.pid >= 0 && row.tid >= 0) {
      track = gpu_track(row.pid, row.tid);
    } else {
      track = host_track(row);
    }
  } else {
    track = host_track(row);
  }
  const EventRef ref = builder_.add_span(track, span_);
  if (has_flows_) row_spans_[row].add_span(span_.start, span_.end, ref);
}

void ChromeImporter::add_instant(const RawEvent& event, TimeNs time) {
  InstantRecord instant;
  instant.time = time;
  instant.name = builder_.intern(event.name);
  instant.category = category_from_chrome(event.cat, event.name);
  if (event.args) {
    for (const dom::key_value_pair field : *event.args) {
      append_scalar_arg(field.key, field.value, instant.args);
    }
  }
  builder_.add_instant(host_track(row_of(event)), instant);
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
  record.bytes = bytes < 0 ? static_cast<std::uint64_t>(-(bytes + 1)) + 1 : static_cast<std::uint64_t>(bytes);
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
    record.owner_op = builder_.intern(op);
  }
  if (const std::string_view scope = text(kMemoryScopeArg); !scope.empty()) {
    record.scope = builder_.intern(scope);
  }
  const RowId row = row_of(event);
  std::string pool(text(kMemoryPoolArg));
  if (pool.empty()) {
    pool = record.device < 0 ? "host memory" : "GPU " + std::to_string(record.device) + " memory";
  }
  builder_.add_memory_event(named_track(row.pid, TrackKind::kMemoryPool, pool, record.device),
                            record);
}

void ChromeImporter::add_counter(const RawEvent& event, TimeNs time) {
  if (!event.args || event.cat == kMemoryCounterCategory) return;
  const RowId row = row_of(event);
  std::size_t series = 0;
  for (const dom::key_value_pair field : *event.args) {
    if (as_double(field.value)) ++series;
  }
  for (const dom::key_value_pair field : *event.args) {
    const auto value = as_double(field.value);
    if (!value) continue;
    // One series keeps the counter's name; several become "name.series" like Perfetto shows them.
    const std::string name =
        series == 1 ? std::string(event.name) : std::string(event.name) + "." + std::string(field.key);
    builder_.add_counter_sample(named_track(row.pid, TrackKind::kCounter, name, -1), time, *value);
  }
}

void ChromeImporter::add_flow_end(const RawEvent& event, TimeNs time) {
  if (!event.id) return;
  const auto id = event_id(*event.id);
  if (!id) return;
  PendingFlowEnd end;
  end.kind = flow_kind_from_chrome(event.cat);
  end.id = *id;
  end.row = row_of(event);
  end.time = time;
  end.is_start = event.phase == 's';
  // Chrome binds s and t to the enclosing slice; f to the next slice unless "bp":"e".
  end.binds_to_next = event.phase == 'f' && event.binding_point != "e";
  // A step ("t") only bends the arrow in a viewer; the model keeps its two ends.
  if (event.phase != 't') flow_ends_.push_back(end);
}

void ChromeImporter::read_event(const RawEvent& event) {
  if (event.phase == 'M' || event.phase == 0) return;
  const auto time = time_of(event.ts);
  if (!time) {
    ++skipped_events_;
    return;
  }
  switch (event.phase) {
    case 'X': {
      const auto duration = event.dur ? micros_to_ns(*event.dur) : std::optional<TimeNs>{0};
      if (!duration || *duration < 0 || *time > std::numeric_limits<TimeNs>::max() - *duration) {
        ++skipped_events_;
        return;
      }
      add_span(event, *time, *time + *duration);
      return;
    }
    case 'B':
    case 'E': begin_ends_[row_of(event)].push_back({*time, event, event.phase == 'B'}); return;
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
      async_ends_[{row_of(event).pid, event.cat, *id}].push_back({*time, event, begin});
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
    case 'C': add_counter(event, *time); return;
    case 's':
    case 't':
    case 'f': add_flow_end(event, *time); return;
    default: return;  // object snapshots, samples, context events: nothing in the model
  }
}

// B/E pairs nest per thread; matched in time order because writers need not emit them sorted.
void ChromeImporter::match_begin_end() {
  for (auto& [row, ends] : begin_ends_) {
    std::stable_sort(ends.begin(), ends.end(), [](const BeginEnd& a, const BeginEnd& b) {
      return a.time < b.time;
    });
    std::vector<const BeginEnd*> open;
    for (const BeginEnd& end : ends) {
      if (end.begin) {
        open.push_back(&end);
      } else if (!open.empty()) {
        add_span(open.back()->event, open.back()->time, end.time);
        open.pop_back();
      }
    }
  }
}

void ChromeImporter::match_async() {
  for (auto& [key, ends] : async_ends_) {
    std::stable_sort(ends.begin(), ends.end(), [](const BeginEnd& a, const BeginEnd& b) {
      return a.time < b.time;
    });
    std::vector<const BeginEnd*> open;
    for (const BeginEnd& end : ends) {
      if (end.begin) {
        open.push_back(&end);
      } else if (!open.empty()) {
        const RawEvent& begin = open.back()->event;
        // Async spans overlap freely, so each name gets its own row in its process.
        fill_span(begin, category_from_chrome(begin.cat, begin.name));
        span_.start = open.back()->time;
        span_.end = std::max(span_.start, end.time);
        const std::string row_name = std::string(begin.name) + " (async)";
        builder_.add_span(named_track(key.pid, TrackKind::kHostThread, row_name, -1), span_);
        open.pop_back();
      }
    }
  }
}

void ChromeImporter::finish_flows() {
  for (auto& [row, spans] : row_spans_) spans.prepare();
  struct Ends {
    std::vector<EventRef> starts;
    std::vector<EventRef> finishes;
  };
  std::map<std::pair<FlowKind, std::uint64_t>, Ends> by_id;
  for (const PendingFlowEnd& end : flow_ends_) {
    const auto spans = row_spans_.find(end.row);
    if (spans == row_spans_.end()) continue;  // nothing on that row to bind to
    const auto bound =
        end.binds_to_next ? spans->second.next(end.time) : spans->second.enclosing(end.time);
    if (!bound) continue;
    Ends& ends = by_id[{end.kind, end.id}];
    (end.is_start ? ends.starts : ends.finishes).push_back(*bound);
  }
  for (const auto& [key, ends] : by_id) {
    const std::size_t pairs = std::min(ends.starts.size(), ends.finishes.size());
    for (std::size_t pair = 0; pair < pairs; ++pair) {
      builder_.add_flow({key.first, key.second, ends.starts[pair], ends.finishes[pair]});
    }
  }
}

Trace ChromeImporter::import(dom::element root, std::uint64_t lost_bytes) {
  dom::array events;
  if (root.type() == dom::element_type::ARRAY) {
    events = array_of(root);
  } else if (root.type() == dom::element_type::OBJECT) {
    const dom::object object = object_of(root);
    dom::element trace_events;
    if (object.at_key("traceEvents").get(trace_events) != simdjson::SUCCESS ||
        trace_events.type() != dom::element_type::ARRAY) {
      throw FormatError(source_, 0, "a JSON object without a \"traceEvents\" array is not a Chrome trace");
    }
    events = array_of(trace_events);
    read_top_level(object);
  } else {
    throw FormatError(source_, 0, "a Chrome trace is a JSON array or object of events");
  }

  // Names and sort orders must be known before the first track is created; this pass only looks
  // up each event's phase, which is cheap next to reading all its fields.
  for (const dom::element element : events) {
    if (element.type() != dom::element_type::OBJECT) continue;
    const dom::object object = object_of(element);
    dom::element phase_value;
    if (object.at_key("ph").get(phase_value) != simdjson::SUCCESS) continue;
    const std::string_view phase = as_string(phase_value);
    if (phase == "M") read_metadata_event(read_fields(object));
    if (phase == "s" || phase == "f") has_flows_ = true;
  }
  for (const dom::element element : events) {
    if (element.type() != dom::element_type::OBJECT) {
      ++skipped_events_;
      continue;
    }
    read_event(read_fields(object_of(element)));
  }
  match_begin_end();
  match_async();
  finish_flows();

  builder_.metadata().source_format = "chrome-json";
  builder_.metadata().lost_bytes = lost_bytes;
  if (skipped_events_ != 0) {
    builder_.set_metadata_value("chrome.skipped_events", std::to_string(skipped_events_));
  }
  return builder_.finalize();
}

bool starts_with_array(std::string_view json) {
  const auto first = json.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && json[first] == '[';
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
Trace import_document(const std::string& source, dom::element root, std::uint64_t lost_bytes) {
  try {
    return ChromeImporter(source).import(root, lost_bytes);
  } catch (const FormatError&) {
    throw;
  } catch (const TraceError& error) {
    throw FormatError(source, 0, error.what());
  }
}

}  // namespace

Trace read_chrome_json(const ChromeJsonInput& input) {
  // simdjson's buffers grow to the largest document parsed; keeping one parser per thread spares
  // repeated imports (the viewer reloading, benchmarks, tests) from allocating and faulting them
  // in again.
  thread_local dom::parser parser;
  dom::element root;
  const std::string source = input.source_name();
  auto error = parser.parse(input.padded_data(), input.json().size(), false).get(root);
  std::uint64_t lost_bytes = 0;
  if (error != simdjson::SUCCESS && starts_with_array(input.json())) {
    // The Chrome format allows the closing ']' to be missing.
    ChromeJsonInput closed = input;
    closed.close_unterminated_array();
    error = parser.parse(closed.padded_data(), closed.json().size(), false).get(root);
    if (error == simdjson::SUCCESS) return import_document(source, root, 0);
  }
  if (error != simdjson::SUCCESS) {
    // A file cut off mid-event: keep the events before the last complete one.
    const std::string_view json = input.json();
    const std::string_view closing = starts_with_array(json) ? "]" : "]}";
    std::size_t search_end = json.size();
    for (int attempt = 0; attempt < kMaxSalvageAttempts; ++attempt) {
      const std::size_t brace = json.rfind('}', search_end == 0 ? 0 : search_end - 1);
      if (brace == std::string_view::npos || search_end == 0) break;
      search_end = brace;
      std::string prefix(json.substr(0, brace + 1));
      prefix += closing;
      ChromeJsonInput candidate = ChromeJsonInput::from_bytes(prefix, source);
      if (parser.parse(candidate.padded_data(), candidate.json().size(), false).get(root) ==
          simdjson::SUCCESS) {
        lost_bytes = json.size() - (brace + 1);
        return import_document(source, root, lost_bytes);
      }
    }
    throw FormatError(source, json.size(),
                      std::string("not valid JSON: ") + simdjson::error_message(error));
  }
  return import_document(source, root, lost_bytes);
}

Trace read_chrome_json(const std::filesystem::path& path, const ChromeJsonReadOptions& options) {
  return read_chrome_json(ChromeJsonInput::read_file(path, options.max_bytes));
}

}  // namespace tscope::trace
