#include "tscope/trace/perfetto_writer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "chrome_json_output.h"
#include "chrome_rows.h"
#include "protobuf_wire.h"

namespace tscope::trace {
namespace {

// Field numbers of Perfetto's protos (protos/perfetto/trace/...): trace.proto, trace_packet.proto,
// interned_data/interned_data.proto and track_event/{track_event, track_descriptor,
// process_descriptor, thread_descriptor, counter_descriptor, debug_annotation}.proto.
namespace field {
constexpr std::uint32_t kTracePacket = 1;

constexpr std::uint32_t kPacketTimestamp = 8;
constexpr std::uint32_t kPacketSequenceId = 10;  // trusted_packet_sequence_id
constexpr std::uint32_t kPacketTrackEvent = 11;
constexpr std::uint32_t kPacketInternedData = 12;
constexpr std::uint32_t kPacketSequenceFlags = 13;
constexpr std::uint32_t kPacketTrackDescriptor = 60;

constexpr std::uint32_t kInternedCategories = 1;         // EventCategory {iid = 1, name = 2}
constexpr std::uint32_t kInternedEventNames = 2;         // EventName {iid = 1, name = 2}
constexpr std::uint32_t kInternedAnnotationNames = 3;    // DebugAnnotationName {iid = 1, name = 2}
constexpr std::uint32_t kInternedAnnotationValues = 29;  // InternedString {iid = 1, str = 2}
constexpr std::uint32_t kInternedIid = 1;
constexpr std::uint32_t kInternedName = 2;

constexpr std::uint32_t kTrackUuid = 1;
constexpr std::uint32_t kTrackName = 2;
constexpr std::uint32_t kTrackProcess = 3;
constexpr std::uint32_t kTrackThread = 4;
constexpr std::uint32_t kTrackParentUuid = 5;
constexpr std::uint32_t kTrackCounter = 8;
constexpr std::uint32_t kProcessPid = 1;
constexpr std::uint32_t kProcessName = 6;
constexpr std::uint32_t kThreadPid = 1;
constexpr std::uint32_t kThreadTid = 2;
constexpr std::uint32_t kThreadName = 5;
constexpr std::uint32_t kCounterUnit = 3;

constexpr std::uint32_t kEventCategoryIids = 3;
constexpr std::uint32_t kEventDebugAnnotations = 4;
constexpr std::uint32_t kEventType = 9;
constexpr std::uint32_t kEventNameIid = 10;
constexpr std::uint32_t kEventTrackUuid = 11;
constexpr std::uint32_t kEventCounterValue = 30;
constexpr std::uint32_t kEventDoubleCounterValue = 44;
constexpr std::uint32_t kEventFlowIds = 47;
constexpr std::uint32_t kEventTerminatingFlowIds = 48;

constexpr std::uint32_t kAnnotationNameIid = 1;
constexpr std::uint32_t kAnnotationUint = 3;
constexpr std::uint32_t kAnnotationInt = 4;
constexpr std::uint32_t kAnnotationDouble = 5;
constexpr std::uint32_t kAnnotationString = 6;
constexpr std::uint32_t kAnnotationStringIid = 17;
}  // namespace field

enum TrackEventType : std::uint64_t {
  kSliceBegin = 1,
  kSliceEnd = 2,
  kInstant = 3,
  kCounter = 4,
};
constexpr std::uint64_t kIncrementalStateCleared = 1;
constexpr std::uint64_t kNeedsIncrementalState = 2;
constexpr std::uint64_t kUnitSizeBytes = 3;  // CounterDescriptor.Unit
// Every packet is on one sequence, so names and categories are interned once for the file.
constexpr std::uint64_t kSequenceId = 1;

class PerfettoWriter {
 public:
  PerfettoWriter(const Trace& trace, const std::filesystem::path& path)
      : trace_(trace),
        rows_(trace),
        out_(path),
        name_interned_(trace.strings().size(), false),
        value_interned_(trace.strings().size(), false),
        // Packet timestamps are unsigned: a trace timed before zero is shifted to start at it.
        time_shift_(std::min<TimeNs>(trace.begin_time(), 0)) {
    const FlowTable& flows = trace.flows();
    flows_by_end_.resize(flows.size());
    for (std::uint32_t flow = 0; flow < flows_by_end_.size(); ++flow)
      flows_by_end_[flow] = flow;
    std::sort(flows_by_end_.begin(), flows_by_end_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return flows[a].to < flows[b].to; });
  }

  void write() {
    write_track_descriptors();
    for (std::uint32_t track = 0; track < trace_.tracks().size(); ++track)
      write_track_events(track);
    out_.close();
  }

 private:
  using RowKey = std::pair<std::int64_t, std::int64_t>;

  // --- Tracks -------------------------------------------------------------------------------

  void write_track_descriptors() {
    for (const ChromeRows::ChromeProcess& process : rows_.processes()) {
      const std::uint64_t uuid = next_uuid_++;
      process_uuid_[process.pid] = uuid;
      payload_.clear();
      payload_.uint_field(field::kTrackUuid, uuid);
      track_name(process.name);
      // A GPU's pid is its device number (Kineto's convention), not an OS process: the device is
      // a plain named track that its streams hang under.
      if (!process.gpu) {
        nested_.clear();
        nested_.int_field(field::kProcessPid, process.pid);
        if (!process.name.empty()) nested_.string_field(field::kProcessName, process.name);
        payload_.message_field(field::kTrackProcess, nested_);
      }
      emit_packet(field::kPacketTrackDescriptor, std::nullopt);
    }
    std::map<RowKey, bool> host_thread_rows;
    for (std::uint32_t track = 0; track < trace_.tracks().size(); ++track) {
      const ChromeRow& row = rows_.of_track(track);
      if (trace_.track(track).info().kind == TrackKind::kHostThread)
        host_thread_rows[{row.pid, row.tid}] = true;
    }
    for (const ChromeRows::ChromeThread& thread : rows_.threads()) {
      const RowKey key{thread.row.pid, thread.row.tid};
      if (row_uuid_.contains(key)) continue;
      const std::uint64_t uuid = next_uuid_++;
      row_uuid_[key] = uuid;
      payload_.clear();
      payload_.uint_field(field::kTrackUuid, uuid);
      track_name(thread.name);
      if (host_thread_rows.contains(key)) {
        nested_.clear();
        nested_.int_field(field::kThreadPid, thread.row.pid);
        nested_.int_field(field::kThreadTid, thread.row.tid);
        if (!thread.name.empty()) nested_.string_field(field::kThreadName, thread.name);
        payload_.message_field(field::kTrackThread, nested_);
      } else {
        // GPU streams and overlap rows: named tracks of their process or device.
        payload_.uint_field(field::kTrackParentUuid, process_uuid_.at(thread.row.pid));
      }
      emit_packet(field::kPacketTrackDescriptor, std::nullopt);
    }
  }

  // An unnamed track is left for Perfetto to name after its process or thread.
  void track_name(std::string_view name) {
    if (!name.empty()) payload_.string_field(field::kTrackName, name);
  }

  std::uint64_t counter_track(std::uint32_t track, std::string_view name, bool bytes) {
    const std::uint64_t uuid = next_uuid_++;
    payload_.clear();
    payload_.uint_field(field::kTrackUuid, uuid);
    track_name(name);
    payload_.uint_field(field::kTrackParentUuid, process_uuid_.at(rows_.of_track(track).pid));
    nested_.clear();
    if (bytes) nested_.uint_field(field::kCounterUnit, kUnitSizeBytes);
    payload_.message_field(field::kTrackCounter, nested_);
    emit_packet(field::kPacketTrackDescriptor, std::nullopt);
    return uuid;
  }

  std::uint64_t uuid_of(const ChromeRow& row) {
    const RowKey key{row.pid, row.tid};
    const auto found = row_uuid_.find(key);
    if (found != row_uuid_.end()) return found->second;
    // Rows of counters and memory pools have no thread: their instants go on the process track.
    return process_uuid_.at(row.pid);
  }

  // --- Events -------------------------------------------------------------------------------

  void write_track_events(std::uint32_t index) {
    const Track& track = trace_.track(index);
    write_slices_and_instants(index);
    const CounterColumns& counters = track.counters();
    if (counters.size() != 0) {
      const std::uint64_t uuid = counter_track(index, trace_.string(track.info().name), false);
      for (std::size_t sample = 0; sample < counters.size(); ++sample) {
        begin_counter(uuid);
        event_.double_field(field::kEventDoubleCounterValue, counters.value[sample]);
        emit_event(counters.time[sample]);
      }
    }
    const MemoryColumns& memory = track.memory();
    if (memory.size() != 0) {
      const std::string pool(trace_.string(track.info().name));
      const std::uint64_t allocated = counter_track(index, pool + " allocated", true);
      const std::uint64_t reserved = counter_track(index, pool + " reserved", true);
      for (std::size_t event = 0; event < memory.size(); ++event) {
        begin_counter(allocated);
        event_.int_field(field::kEventCounterValue,
                         static_cast<std::int64_t>(memory.total_allocated[event]));
        emit_event(memory.time[event]);
        begin_counter(reserved);
        event_.int_field(field::kEventCounterValue,
                         static_cast<std::int64_t>(memory.total_reserved(event)));
        emit_event(memory.time[event]);
      }
    }
  }

  // Slices as begin/end pairs and instants, in time order per row: each end is written before
  // any later event of its row, so that equal times (a span ending where the next starts) and
  // instants inside a span nest as they should.
  void write_slices_and_instants(std::uint32_t index) {
    const SpanColumns& spans = trace_.track(index).spans();
    const InstantColumns& instants = trace_.track(index).instants();
    const std::uint64_t instant_uuid = uuid_of(rows_.of_track(index));
    open_rows_.clear();
    std::uint32_t span = 0;
    std::uint32_t instant = 0;
    while (span < spans.size() || instant < instants.size()) {
      const bool span_next = instant == instants.size() ||
                             (span < spans.size() && spans.start[span] <= instants.time[instant]);
      const TimeNs time = span_next ? spans.start[span] : instants.time[instant];
      const std::uint64_t uuid = span_next ? uuid_of(rows_.of_span(index, span)) : instant_uuid;
      std::vector<TimeNs>& open_ends = open_ends_of(uuid);
      while (!open_ends.empty() && open_ends.back() <= time) {
        end_slice(uuid, open_ends.back());
        open_ends.pop_back();
      }
      if (span_next) {
        begin_event(kSliceBegin, uuid, spans.name[span], spans.category[span]);
        annotate_detail(index, span);
        add_flow_ids({EventKind::kSpan, index, span});
        open_ends.push_back(spans.end(span));
        ++span;
      } else {
        begin_event(kInstant, uuid, instants.name[instant], instants.category[instant]);
        annotate_args(trace_.args(instants.args[instant]));
        add_flow_ids({EventKind::kInstant, index, instant});
        ++instant;
      }
      emit_event(time);
    }
    for (auto& [uuid, open_ends] : open_rows_) {
      for (; !open_ends.empty(); open_ends.pop_back())
        end_slice(uuid, open_ends.back());
    }
  }

  std::vector<TimeNs>& open_ends_of(std::uint64_t uuid) {
    for (auto& [row, open_ends] : open_rows_) {
      if (row == uuid) return open_ends;
    }
    return open_rows_.emplace_back(uuid, std::vector<TimeNs>{}).second;
  }

  void end_slice(std::uint64_t uuid, TimeNs time) {
    event_.clear();
    event_.uint_field(field::kEventType, kSliceEnd);
    event_.uint_field(field::kEventTrackUuid, uuid);
    emit_event(time);
  }

  void begin_counter(std::uint64_t uuid) {
    event_.clear();
    event_.uint_field(field::kEventType, kCounter);
    event_.uint_field(field::kEventTrackUuid, uuid);
  }

  void begin_event(TrackEventType type, std::uint64_t uuid, StringId name, Category category) {
    event_.clear();
    event_.uint_field(field::kEventType, type);
    event_.uint_field(field::kEventTrackUuid, uuid);
    // iid 0 means "none" in Perfetto, so string id s is iid s + 1 and category c is c + 1.
    if (!name_interned_[name]) {
      name_interned_[name] = true;
      intern(field::kInternedEventNames, name + 1ull, trace_.string(name));
    }
    event_.uint_field(field::kEventNameIid, name + 1ull);
    const auto category_index = static_cast<std::size_t>(category);
    if (!category_interned_[category_index]) {
      category_interned_[category_index] = true;
      intern(field::kInternedCategories, category_index + 1, to_string(category));
    }
    event_.uint_field(field::kEventCategoryIids, category_index + 1);
  }

  void intern(std::uint32_t table, std::uint64_t iid, std::string_view text) {
    nested_.clear();
    nested_.uint_field(field::kInternedIid, iid);
    nested_.string_field(field::kInternedName, text);
    interned_.message_field(table, nested_);
  }

  // Flow ids are the flow's index + 1: unique, and 0 is not a valid id.
  void add_flow_ids(const EventRef& event) {
    const FlowTable& flows = trace_.flows();
    auto from =
        std::lower_bound(flows.begin(), flows.end(), event,
                         [](const Flow& flow, const EventRef& ref) { return flow.from < ref; });
    for (; from != flows.end() && from->from == event; ++from)
      event_.fixed64_field(field::kEventFlowIds,
                           static_cast<std::uint64_t>(from - flows.begin()) + 1);
    auto to = std::lower_bound(
        flows_by_end_.begin(), flows_by_end_.end(), event,
        [&](std::uint32_t flow, const EventRef& ref) { return flows[flow].to < ref; });
    for (; to != flows_by_end_.end() && flows[*to].to == event; ++to)
      event_.fixed64_field(field::kEventTerminatingFlowIds, std::uint64_t{*to} + 1);
  }

  // --- Debug annotations (the span's detail, shown in Perfetto's "Arguments") ---------------

  std::uint64_t annotation_name(std::string_view name) {
    const auto found = annotation_names_.find(name);
    if (found != annotation_names_.end()) return found->second;
    const std::uint64_t iid = annotation_names_.size() + 1;
    annotation_names_.emplace(std::string(name), iid);
    intern(field::kInternedAnnotationNames, iid, name);
    return iid;
  }

  void begin_annotation(std::string_view name) {
    annotation_.clear();
    annotation_.uint_field(field::kAnnotationNameIid, annotation_name(name));
  }
  void end_annotation() { event_.message_field(field::kEventDebugAnnotations, annotation_); }

  void annotate(std::string_view name, std::uint64_t value) {
    begin_annotation(name);
    annotation_.uint_field(field::kAnnotationUint, value);
    end_annotation();
  }
  void annotate_int(std::string_view name, std::int64_t value) {
    begin_annotation(name);
    annotation_.int_field(field::kAnnotationInt, value);
    end_annotation();
  }
  void annotate(std::string_view name, std::string_view value) {
    begin_annotation(name);
    annotation_.string_field(field::kAnnotationString, value);
    end_annotation();
  }

  // "[a, b, c]" for a grid, a block or a tensor's shape, reusing one buffer.
  template <typename Numbers>
  std::string_view number_list(const Numbers& numbers) {
    text_.push_back('[');
    bool first = true;
    for (const auto number : numbers) {
      if (!first) text_ += ", ";
      first = false;
      text_ += std::to_string(number);
    }
    text_.push_back(']');
    return text_;
  }

  void annotate_detail(std::uint32_t track, std::uint32_t span) {
    const SpanColumns& spans = trace_.track(track).spans();
    if (spans.correlation_id(span) != 0) annotate("correlation", spans.correlation_id(span));
    if (spans.external_correlation_id(span) != 0)
      annotate("external correlation", spans.external_correlation_id(span));
    const SpanDetail* shared = trace_.span_detail(track, span);
    if (shared == nullptr) return;
    const SpanDetail& detail = *shared;
    if (detail.kernel != kNoIndex) {
      const KernelInfo& kernel = trace_.kernels()[detail.kernel];
      text_.clear();
      annotate("grid", number_list(kernel.grid));
      text_.clear();
      annotate("block", number_list(kernel.block));
      annotate("registers per thread", kernel.registers_per_thread);
      annotate("static shared memory", kernel.static_shared_bytes);
      annotate("dynamic shared memory", kernel.dynamic_shared_bytes);
    }
    if (detail.copy != kNoIndex) {
      const CopyInfo& copy = trace_.copies()[detail.copy];
      annotate("bytes", copy.bytes);
      annotate("copy kind", to_string(copy.direction));
      annotate("src memory", to_string(copy.source));
      annotate("dst memory", to_string(copy.destination));
    }
    if (const std::optional<OpView> found = trace_.op(track, span)) {
      const OpView& op = *found;
      if (!op.input_shapes.empty()) {
        text_.clear();
        text_.push_back('[');
        for (std::size_t input = 0; input < op.input_shapes.size(); ++input) {
          if (input != 0) text_ += ", ";
          number_list(op.input_shapes[input]);
        }
        text_.push_back(']');
        annotate("input shapes", text_);
      }
      // Zero means unknown here (an imported op), so it is left out.
      if (op.flops != 0) annotate("flops", op.flops);
      if (op.bytes_read != 0) annotate("bytes read", op.bytes_read);
      if (op.bytes_written != 0) annotate("bytes written", op.bytes_written);
    }
    annotate_args(trace_.args(detail.args));
  }

  void annotate_args(const ArgList& args) {
    for (const Arg& arg : args) {
      const std::string_view name = trace_.string(arg.key);
      if (const auto* integer = std::get_if<std::int64_t>(&arg.value)) {
        annotate_int(name, *integer);
      } else if (const auto* real = std::get_if<double>(&arg.value)) {
        begin_annotation(name);
        annotation_.double_field(field::kAnnotationDouble, *real);
        end_annotation();
      } else {
        const StringId value = std::get<StringArg>(arg.value).id;
        if (!value_interned_[value]) {
          value_interned_[value] = true;
          intern(field::kInternedAnnotationValues, value + 1ull, trace_.string(value));
        }
        begin_annotation(name);
        annotation_.uint_field(field::kAnnotationStringIid, value + 1ull);
        end_annotation();
      }
    }
  }

  // --- Packets ------------------------------------------------------------------------------

  void emit_event(TimeNs time) {
    payload_.clear();
    std::swap(payload_, event_);
    emit_packet(field::kPacketTrackEvent, time);
  }

  // Writes payload_ (and any names interned for it) as one TracePacket of the Trace.
  void emit_packet(std::uint32_t payload_field, std::optional<TimeNs> time) {
    packet_.clear();
    if (time)
      packet_.uint_field(field::kPacketTimestamp, static_cast<std::uint64_t>(*time - time_shift_));
    packet_.uint_field(field::kPacketSequenceId, kSequenceId);
    packet_.uint_field(field::kPacketSequenceFlags,
                       first_packet_ ? kIncrementalStateCleared : kNeedsIncrementalState);
    first_packet_ = false;
    if (!interned_.empty()) {
      packet_.message_field(field::kPacketInternedData, interned_);
      interned_.clear();
    }
    packet_.message_field(payload_field, payload_);
    framed_.clear();
    framed_.message_field(field::kTracePacket, packet_);
    out_.raw(framed_.bytes());
  }

  const Trace& trace_;
  const ChromeRows rows_;
  ChromeJsonOutput out_;
  std::vector<bool> name_interned_;
  // Free-form string values (Kineto's call stacks, input types) repeat across events: they are
  // interned by string id like names, which makes them most of the file's savings over JSON.
  std::vector<bool> value_interned_;
  bool category_interned_[kCategoryCount] = {};
  std::map<std::string, std::uint64_t, std::less<>> annotation_names_;
  TimeNs time_shift_;
  std::vector<std::uint32_t> flows_by_end_;  // flow indices sorted by their `to` end

  std::uint64_t next_uuid_ = 1;
  std::map<std::int64_t, std::uint64_t> process_uuid_;  // by pid
  std::map<RowKey, std::uint64_t> row_uuid_;            // by (pid, tid)
  std::vector<std::pair<std::uint64_t, std::vector<TimeNs>>> open_rows_;

  bool first_packet_ = true;
  ProtoMessage event_;
  ProtoMessage annotation_;
  ProtoMessage payload_;
  ProtoMessage nested_;
  ProtoMessage interned_;
  ProtoMessage packet_;
  ProtoMessage framed_;
  std::string text_;
};

}  // namespace

void write_perfetto(const Trace& trace, const std::filesystem::path& path) {
  PerfettoWriter(trace, path).write();
}

}  // namespace tscope::trace
