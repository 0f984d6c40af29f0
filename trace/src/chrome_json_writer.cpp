#include "tscope/trace/chrome_json_writer.h"

#include <algorithm>
#include <optional>
#include <string>

#include "chrome_json_output.h"
#include "chrome_rows.h"
#include "tscope/trace/chrome_kineto_names.h"

namespace tscope::trace {
namespace {

class ChromeJsonWriter {
 public:
  ChromeJsonWriter(const std::filesystem::path& path, TimeNs base_time,
                   const ChromeJsonOptions& options)
      : out_(path), base_time_(base_time), options_(options) {}

  void write(std::span<const ChromeJsonPart> parts) {
    if (!parts.empty()) write_header(parts.front().trace);
    out_.raw(",\n\"traceEvents\": [");
    for (const ChromeJsonPart& part : parts) {
      const ChromeRows rows(part.trace, part.pid_offset);
      trace_ = &part.trace;
      rows_ = &rows;
      write_process_metadata();
      for (std::uint32_t track = 0; track < trace().tracks().size(); ++track)
        write_track(track);
      for (const Flow& flow : trace().flows())
        write_flow(flow);
    }
    out_.raw("\n]}\n");
    out_.close();
  }

 private:
  const Trace& trace() const { return *trace_; }

  void begin_event() {
    out_.raw(first_event_ ? "\n" : ",\n");
    first_event_ = false;
  }

  void key(std::string_view name) {
    out_.string(name);
    out_.raw(':');
  }

  void row_fields(const ChromeRow& row) {
    out_.raw("\"pid\":");
    out_.integer(row.pid);
    out_.raw(",\"tid\":");
    out_.integer(row.tid);
  }

  void time_field(std::string_view name, TimeNs time) {
    out_.raw(',');
    key(name);
    out_.micros(time);
  }

  // What follows an event's name: its row and its time from the base.
  void row_and_time(const ChromeRow& row, TimeNs time) {
    out_.raw(',');
    row_fields(row);
    time_field("ts", time - base_time_);
  }

  void write_header(const Trace& first) {
    out_.raw("{\n\"schemaVersion\": 1,\n\"baseTimeNanoseconds\": ");
    out_.integer(base_time_);
    for (const Process& process : first.processes()) {
      if (process.rank < 0) continue;
      out_.raw(",\n\"distributedInfo\": {\"rank\": ");
      out_.integer(process.rank);
      out_.raw('}');
      break;
    }
    if (first.metadata().dropped_events != 0) {
      out_.raw(",\n\"droppedEvents\": ");
      out_.unsigned_integer(first.metadata().dropped_events);
    }
    for (const auto& [name, value] : first.metadata().values) {
      if (is_reserved_top_level_key(name)) continue;
      out_.raw(",\n");
      key(name);
      out_.string(value);
    }
  }

  static bool is_reserved_top_level_key(std::string_view name) {
    return name == "traceEvents" || name == "schemaVersion" || name == "baseTimeNanoseconds" ||
           name == "distributedInfo" || name == "droppedEvents" || name == "deviceProperties";
  }

  void metadata_event(std::string_view name, const ChromeRow& row, std::string_view arg,
                      std::string_view text, std::optional<std::int64_t> number) {
    begin_event();
    out_.raw("{\"ph\":\"M\",\"name\":");
    out_.string(name);
    out_.raw(',');
    row_fields(row);
    // Viewers that sort by time (speedscope) want a ts on every event, metadata included.
    out_.raw(",\"ts\":0,\"args\":{");
    key(arg);
    if (number) {
      out_.integer(*number);
    } else {
      out_.string(text);
    }
    out_.raw("}}");
  }

  void write_process_metadata() {
    for (const ChromeRows::ChromeProcess& process : rows_->processes()) {
      const ChromeRow row{process.pid, 0};
      metadata_event("process_name", row, "name", process.name, std::nullopt);
      if (process.gpu) metadata_event("process_labels", row, "labels", process.name, std::nullopt);
      metadata_event("process_sort_index", row, "sort_index", {}, process.sort_index);
    }
    for (const ChromeRows::ChromeThread& thread : rows_->threads()) {
      metadata_event("thread_name", thread.row, "name", thread.name, std::nullopt);
      metadata_event("thread_sort_index", thread.row, "sort_index", {}, thread.sort_index);
    }
  }

  // Writes `"key":value` pairs of an args object, with the separators between them.
  class ArgsWriter {
   public:
    ArgsWriter(ChromeJsonWriter& writer, std::string_view member)
        : writer_(writer), member_(member) {}
    ~ArgsWriter() {
      if (open_) writer_.out_.raw('}');
    }
    ArgsWriter(const ArgsWriter&) = delete;
    ArgsWriter& operator=(const ArgsWriter&) = delete;

    ChromeJsonOutput& field(std::string_view name) {
      if (open_) {
        writer_.out_.raw(',');
      } else {
        writer_.out_.raw(',');
        writer_.key(member_);
        writer_.out_.raw('{');
      }
      open_ = true;
      writer_.key(name);
      return writer_.out_;
    }
    void integer(std::string_view name, std::int64_t value) { field(name).integer(value); }
    void unsigned_integer(std::string_view name, std::uint64_t value) {
      field(name).unsigned_integer(value);
    }
    void string(std::string_view name, std::string_view value) { field(name).string(value); }
    template <typename Numbers>
    void list(std::string_view name, const Numbers& numbers) {
      ChromeJsonOutput& out = field(name);
      out.raw('[');
      bool first = true;
      for (const auto number : numbers) {
        if (!first) out.raw(',');
        first = false;
        if constexpr (std::is_signed_v<decltype(number)>) {
          out.integer(number);
        } else {
          out.unsigned_integer(number);
        }
      }
      out.raw(']');
    }
    // The Chrome fields an importer kept as args (the original category, an instant's scope)
    // are written as those fields, not again here.
    void free_form(const Trace& trace, const ArgList& args) {
      for (const Arg& arg : args) {
        const std::string_view name = trace.string(arg.key);
        if (name == kChromeCategoryArg || name == kChromeScopeArg) continue;
        ChromeJsonOutput& out = field(name);
        if (const auto* integer_value = std::get_if<std::int64_t>(&arg.value)) {
          out.integer(*integer_value);
        } else if (const auto* real_value = std::get_if<double>(&arg.value)) {
          out.real(*real_value);
        } else {
          out.string(trace.string(std::get<StringArg>(arg.value).id));
        }
      }
    }

   private:
    ChromeJsonWriter& writer_;
    std::string_view member_;
    bool open_ = false;
  };

  std::string_view detail_member() const {
    return options_.detail == ChromeDetailPlacement::kArgs ? "args" : kChromeSeparateArgsMember;
  }

  // The "cat" of a span or instant: the category a Chrome importer kept when the model's own
  // would say less ("Trace", "overhead"), else the model's.
  std::string_view category_of(Category category, const ArgList& args) const {
    if (const auto kept = string_arg(args, kChromeCategoryArg)) return *kept;
    return chrome_category(category);
  }

  std::optional<std::string_view> string_arg(const ArgList& args, std::string_view name) const {
    for (const Arg& arg : args) {
      if (trace().string(arg.key) != name) continue;
      if (const auto* text = std::get_if<StringArg>(&arg.value)) return trace().string(text->id);
    }
    return std::nullopt;
  }

  void span_args(std::uint32_t track_index, std::uint32_t span) {
    ArgsWriter args(*this, detail_member());
    const TrackInfo& track = trace().track(track_index).info();
    const SpanColumns& spans = trace().track(track_index).spans();
    const bool gpu_row = track.kind == TrackKind::kGpuStream;
    const SpanDetail* found = trace().span_detail(track_index, span);
    const std::uint64_t external_correlation = spans.external_correlation_id(span);
    const std::uint32_t correlation = spans.correlation_id(span);
    if (found == nullptr && external_correlation == 0 && correlation == 0) {
      // GPU activity names its stream, so it returns there from an overlap row.
      if (gpu_row) {
        args.integer("device", track.device);
        args.integer("stream", track.stream);
      }
      return;
    }
    const SpanDetail detail = found != nullptr ? *found : SpanDetail{};
    if (external_correlation != 0) args.unsigned_integer("External id", external_correlation);
    if (correlation != 0) args.unsigned_integer("correlation", correlation);
    if (detail.kernel != kNoIndex) {
      const KernelInfo& kernel = trace().kernels()[detail.kernel];
      args.integer("device", kernel.device);
      args.integer("stream", kernel.stream);
      args.unsigned_integer("registers per thread", kernel.registers_per_thread);
      args.unsigned_integer(
          "shared memory", std::uint64_t{kernel.static_shared_bytes} + kernel.dynamic_shared_bytes);
      args.unsigned_integer("static shared memory", kernel.static_shared_bytes);
      args.unsigned_integer("dynamic shared memory", kernel.dynamic_shared_bytes);
      args.list("grid", kernel.grid);
      args.list("block", kernel.block);
    }
    if (gpu_row && detail.kernel == kNoIndex) {
      args.integer("device", track.device);
      args.integer("stream", track.stream);
    }
    if (detail.copy != kNoIndex) {
      const CopyInfo& copy = trace().copies()[detail.copy];
      args.unsigned_integer("bytes", copy.bytes);
      args.string("copy kind", to_string(copy.direction));
      args.string("src memory", to_string(copy.source));
      args.string("dst memory", to_string(copy.destination));
    }
    if (const std::optional<OpView> found_op = trace().op(track_index, span)) {
      const OpView& op = *found_op;
      ChromeJsonOutput& out = args.field("Input Dims");
      out.raw('[');
      for (std::size_t input = 0; input < op.input_shapes.size(); ++input) {
        if (input != 0) out.raw(',');
        out.raw('[');
        for (std::size_t axis = 0; axis < op.input_shapes[input].size(); ++axis) {
          if (axis != 0) out.raw(',');
          out.integer(op.input_shapes[input][axis]);
        }
        out.raw(']');
      }
      out.raw(']');
      args.unsigned_integer("flops", op.flops);
      args.unsigned_integer("bytes read", op.bytes_read);
      args.unsigned_integer("bytes written", op.bytes_written);
      args.list("tensors read", op.tensors_read);
      args.list("tensors written", op.tensors_written);
    }
    args.free_form(trace(), trace().args(detail.args));
  }

  void write_track(std::uint32_t index) {
    const Track& track = trace().track(index);
    const ChromeRow& row = rows_->of_track(index);
    const SpanColumns& spans = track.spans();
    for (std::uint32_t span = 0; span < spans.size(); ++span) {
      const SpanDetail* detail = trace().span_detail(index, span);
      const ArgList free_args = detail != nullptr ? trace().args(detail->args) : ArgList{};
      begin_event();
      out_.raw("{\"ph\":\"X\",\"cat\":");
      out_.string(category_of(spans.category[span], free_args));
      out_.raw(",\"name\":");
      out_.string(trace().string(spans.name[span]));
      row_and_time(rows_->of_span(index, static_cast<std::uint32_t>(span)), spans.start[span]);
      time_field("dur", spans.end(span) - spans.start[span]);
      span_args(index, span);
      out_.raw('}');
    }
    const InstantColumns& instants = track.instants();
    for (std::size_t instant = 0; instant < instants.size(); ++instant) {
      const ArgList args = trace().args(instants.args[instant]);
      begin_event();
      out_.raw("{\"ph\":\"i\",\"s\":");
      // Thread scope unless the source said process or global.
      out_.string(string_arg(args, kChromeScopeArg).value_or("t"));
      out_.raw(",\"cat\":");
      out_.string(category_of(instants.category[instant], args));
      out_.raw(",\"name\":");
      out_.string(trace().string(instants.name[instant]));
      row_and_time(row, instants.time[instant]);
      {
        ArgsWriter writer(*this, detail_member());
        writer.free_form(trace(), args);
      }
      out_.raw('}');
    }
    const CounterColumns& counters = track.counters();
    for (std::size_t sample = 0; sample < counters.size(); ++sample) {
      begin_event();
      out_.raw("{\"ph\":\"C\",\"name\":");
      out_.string(trace().string(track.info().name));
      row_and_time(row, counters.time[sample]);
      out_.raw(",\"args\":{\"value\":");
      out_.real(counters.value[sample]);
      out_.raw("}}");
    }
    const MemoryColumns& memory = track.memory();
    for (std::size_t event = 0; event < memory.size(); ++event)
      write_memory_event(track, row, event);
  }

  void write_memory_event(const Track& track, const ChromeRow& row, std::size_t event) {
    const MemoryColumns& memory = track.memory();
    const std::string_view pool = trace().string(track.info().name);
    begin_event();
    out_.raw("{\"ph\":\"i\",\"s\":\"t\",\"name\":");
    out_.string(kKinetoMemoryEventName);
    row_and_time(row, memory.time[event]);
    {
      // Kineto's own args, which memory views read; viewers that key frames ignore instants.
      ArgsWriter args(*this, "args");
      const std::int32_t device = memory.device(event);
      args.integer("Device Type", device < 0 ? 0 : 1);  // Kineto: 0 CPU, 1 CUDA
      args.integer("Device Id", device);
      args.unsigned_integer("Addr", memory.address[event]);
      // Kineto's sign convention: a free is a negative allocation.
      const auto bytes = static_cast<std::int64_t>(memory.bytes[event]);
      args.integer("Bytes", memory.action(event) == MemoryAction::kFree ? -bytes : bytes);
      args.unsigned_integer("Total Allocated", memory.total_allocated[event]);
      args.unsigned_integer("Total Reserved", memory.total_reserved(event));
      args.string(kMemoryPoolArg, pool);
      if (memory.owner_op(event) != kEmptyString) {
        args.string(kMemoryOpArg, trace().string(memory.owner_op(event)));
      }
      if (memory.scope(event) != kEmptyString) {
        args.string(kMemoryScopeArg, trace().string(memory.scope(event)));
      }
    }
    out_.raw("}");
    // The allocator totals again as a counter, which viewers draw as a memory curve.
    begin_event();
    out_.raw("{\"ph\":\"C\",\"cat\":");
    out_.string(kMemoryCounterCategory);
    out_.raw(",\"name\":");
    out_.string(pool);
    row_and_time(row, memory.time[event]);
    out_.raw(",\"args\":{\"Total Allocated\":");
    out_.unsigned_integer(memory.total_allocated[event]);
    out_.raw(",\"Total Reserved\":");
    out_.unsigned_integer(memory.total_reserved(event));
    out_.raw("}}");
  }

  // `time` lies within the span of `end`, where viewers bind the arrow's end to the innermost
  // slice open on its row.
  void flow_end(const Flow& flow, std::uint64_t arrow, const EventRef& end, bool is_start,
                TimeNs time) {
    begin_event();
    out_.raw(is_start ? "{\"ph\":\"s\",\"id\":" : "{\"ph\":\"f\",\"bp\":\"e\",\"id\":");
    out_.unsigned_integer(arrow);
    out_.raw(",\"cat\":");
    out_.string(chrome_flow_category(flow.kind));
    out_.raw(",\"name\":");
    out_.string(chrome_flow_category(flow.kind));
    row_and_time(rows_->of_span(end.track, end.index), time);
    // The id that tied the ends (a correlation id) may repeat across arrows; the "id" above may
    // not, or viewers that close a flow at its end event lose all but one arrow per launch.
    out_.raw(",\"args\":{\"correlation\":");
    out_.unsigned_integer(flow.id);
    out_.raw("}}");
  }

  void write_flow(const Flow& flow) {
    // Chrome flows bind to slices; arrows from instants or samples have no JSON form.
    if (flow.from.kind != EventKind::kSpan || flow.to.kind != EventKind::kSpan) return;
    const std::uint64_t arrow = ++flows_written_;
    const SpanColumns& from = trace().track(flow.from.track).spans();
    const SpanColumns& to = trace().track(flow.to.track).spans();
    const TimeNs start = from.start[flow.from.index];
    flow_end(flow, arrow, flow.from, true, start);
    // An arrow ends where its target starts, which binds it there even when the target holds
    // children. A handoff's target is a wait that may begin before the work it waits for (a
    // batch a loader thread began after the wait began); its arrow ends at the work's start
    // instead, within the wait, so that it does not run back in time.
    const TimeNs target_start = to.start[flow.to.index];
    flow_end(flow, arrow, flow.to, false,
             flow.kind == FlowKind::kHandoff
                 ? std::clamp(start, target_start, to.end(flow.to.index))
                 : target_start);
  }

  ChromeJsonOutput out_;
  TimeNs base_time_;
  ChromeJsonOptions options_;
  const Trace* trace_ = nullptr;
  const ChromeRows* rows_ = nullptr;
  bool first_event_ = true;
  std::uint64_t flows_written_ = 0;
};

}  // namespace

void write_chrome_json(const Trace& trace, const std::filesystem::path& path) {
  const ChromeJsonPart part{trace};
  write_chrome_json(std::span(&part, 1), path, {});
}

void write_chrome_json(std::span<const ChromeJsonPart> parts, const std::filesystem::path& path,
                       const ChromeJsonOptions& options) {
  TimeNs base_time = parts.empty() ? 0 : parts.front().trace.begin_time();
  for (const ChromeJsonPart& part : parts)
    base_time = std::min(base_time, part.trace.begin_time());
  ChromeJsonWriter(path, base_time, options).write(parts);
}

}  // namespace tscope::trace
