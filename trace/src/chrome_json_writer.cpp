#include "tscope/trace/chrome_json_writer.h"

#include <map>
#include <optional>
#include <string>

#include "chrome_json_output.h"
#include "tscope/trace/chrome_kineto_names.h"

namespace tscope::trace {
namespace {

// Where a track's events go in Chrome's (pid, tid) grid.
struct ChromeRow {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  // Processes and threads without an OS id (rows an importer found named, such as Kineto's
  // "Spans") keep their name as the pid or tid, which Chrome allows.
  std::optional<std::string_view> named_pid;
  std::optional<std::string_view> named_tid;
};

class ChromeJsonWriter {
 public:
  ChromeJsonWriter(const Trace& trace, const std::filesystem::path& path)
      : trace_(trace), out_(path), base_time_(trace.begin_time()) {}

  void write() {
    write_header();
    write_process_metadata();
    for (std::uint32_t track = 0; track < trace_.tracks().size(); ++track) write_track(track);
    for (const Flow& flow : trace_.flows()) write_flow(flow);
    out_.raw("\n]}\n");
    out_.close();
  }

 private:
  ChromeRow process_row(const Process& process) const {
    if (process.pid < 0) return {0, 0, trace_.string(process.name), {}};
    return {process.pid, 0, {}, {}};
  }

  ChromeRow row_of(const Track& track) const {
    const TrackInfo& info = track.info();
    if (info.kind == TrackKind::kGpuStream) return {info.device, info.stream, {}, {}};
    ChromeRow row = process_row(trace_.processes()[info.process]);
    if (info.kind != TrackKind::kHostThread) return row;
    if (info.thread_id < 0) {
      row.named_tid = trace_.string(info.name);
    } else {
      row.tid = info.thread_id;
    }
    return row;
  }

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
    if (row.named_pid) {
      out_.string(*row.named_pid);
    } else {
      out_.integer(row.pid);
    }
    out_.raw(",\"tid\":");
    if (row.named_tid) {
      out_.string(*row.named_tid);
    } else {
      out_.integer(row.tid);
    }
  }

  void time_field(std::string_view name, TimeNs time) {
    out_.raw(',');
    key(name);
    out_.micros(time);
  }

  void write_header() {
    out_.raw("{\n\"schemaVersion\": 1,\n\"baseTimeNanoseconds\": ");
    out_.integer(base_time_);
    for (const Process& process : trace_.processes()) {
      if (process.rank < 0) continue;
      out_.raw(",\n\"distributedInfo\": {\"rank\": ");
      out_.integer(process.rank);
      out_.raw('}');
      break;
    }
    if (trace_.metadata().dropped_events != 0) {
      out_.raw(",\n\"droppedEvents\": ");
      out_.unsigned_integer(trace_.metadata().dropped_events);
    }
    for (const auto& [name, value] : trace_.metadata().values) {
      if (is_reserved_top_level_key(name)) continue;
      out_.raw(",\n");
      key(name);
      out_.string(value);
    }
    out_.raw(",\n\"traceEvents\": [");
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
    out_.raw(",\"args\":{");
    key(arg);
    if (number) {
      out_.integer(*number);
    } else {
      out_.string(text);
    }
    out_.raw("}}");
  }

  void write_process_metadata() {
    struct ChromeProcess {
      ChromeRow row;
      std::string name;
      std::int32_t sort_index = 0;
      bool gpu = false;
    };
    std::map<std::pair<std::int64_t, std::optional<std::string_view>>, ChromeProcess> processes;
    for (const Track& track : trace_.tracks()) {
      const TrackInfo& info = track.info();
      const Process& owner = trace_.processes()[info.process];
      if (info.kind == TrackKind::kGpuStream) {
        // Kineto gives each device its own pid; a device without a process of its own is named
        // after the device.
        const bool own = owner.pid == info.device;
        processes.try_emplace({info.device, {}},
                              ChromeProcess{{info.device, 0, {}, {}},
                                            own ? std::string(trace_.string(owner.name))
                                                : "GPU " + std::to_string(info.device),
                                            own ? owner.sort_index : 0, true});
      } else {
        const ChromeRow row = process_row(owner);
        processes.try_emplace({row.pid, row.named_pid},
                              ChromeProcess{row, std::string(trace_.string(owner.name)),
                                            owner.sort_index, false});
      }
    }
    for (const auto& [key, process] : processes) {
      const ChromeRow& row = process.row;
      metadata_event("process_name", row, "name", process.name, std::nullopt);
      if (process.gpu) metadata_event("process_labels", row, "labels", process.name, std::nullopt);
      metadata_event("process_sort_index", row, "sort_index", {}, process.sort_index);
    }
    for (const Track& track : trace_.tracks()) {
      const TrackKind kind = track.info().kind;
      if (kind != TrackKind::kHostThread && kind != TrackKind::kGpuStream) continue;
      const ChromeRow row = row_of(track);
      metadata_event("thread_name", row, "name", trace_.string(track.info().name), std::nullopt);
      metadata_event("thread_sort_index", row, "sort_index", {}, track.info().sort_index);
    }
  }

  // Writes `"key":value` pairs of an args object, with the separators between them.
  class ArgsWriter {
   public:
    explicit ArgsWriter(ChromeJsonWriter& writer) : writer_(writer) {}
    ~ArgsWriter() {
      if (open_) writer_.out_.raw('}');
    }
    ArgsWriter(const ArgsWriter&) = delete;
    ArgsWriter& operator=(const ArgsWriter&) = delete;

    ChromeJsonOutput& field(std::string_view name) {
      writer_.out_.raw(open_ ? "," : ",\"args\":{");
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
    void free_form(const Trace& trace, std::span<const Arg> args) {
      for (const Arg& arg : args) {
        ChromeJsonOutput& out = field(trace.string(arg.key));
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
    bool open_ = false;
  };

  void span_args(const SpanDetail& detail, const TrackInfo& track) {
    ArgsWriter args(*this);
    if (detail.external_correlation_id != 0) {
      args.unsigned_integer("External id", detail.external_correlation_id);
    }
    if (detail.correlation_id != 0) args.unsigned_integer("correlation", detail.correlation_id);
    if (detail.kernel != kNoIndex) {
      const KernelInfo& kernel = trace_.kernels()[detail.kernel];
      args.integer("device", kernel.device);
      args.integer("stream", kernel.stream);
      args.unsigned_integer("registers per thread", kernel.registers_per_thread);
      args.unsigned_integer("shared memory",
                            std::uint64_t{kernel.static_shared_bytes} + kernel.dynamic_shared_bytes);
      args.unsigned_integer("static shared memory", kernel.static_shared_bytes);
      args.unsigned_integer("dynamic shared memory", kernel.dynamic_shared_bytes);
      args.list("grid", kernel.grid);
      args.list("block", kernel.block);
    }
    if (detail.copy != kNoIndex) {
      const CopyInfo& copy = trace_.copies()[detail.copy];
      if (track.kind == TrackKind::kGpuStream) {
        args.integer("device", track.device);
        args.integer("stream", track.stream);
      }
      args.unsigned_integer("bytes", copy.bytes);
      args.string("copy kind", to_string(copy.direction));
      args.string("src memory", to_string(copy.source));
      args.string("dst memory", to_string(copy.destination));
    }
    if (detail.op != kNoIndex) {
      const OpInfo& op = trace_.ops()[detail.op];
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
    args.free_form(trace_, trace_.args(detail.args));
  }

  void write_track(std::uint32_t index) {
    const Track& track = trace_.track(index);
    const ChromeRow row = row_of(track);
    const SpanColumns& spans = track.spans();
    for (std::size_t span = 0; span < spans.size(); ++span) {
      begin_event();
      out_.raw("{\"ph\":\"X\",\"cat\":");
      out_.string(chrome_category(spans.category[span]));
      out_.raw(",\"name\":");
      out_.string(trace_.string(spans.name[span]));
      out_.raw(',');
      row_fields(row);
      time_field("ts", spans.start[span] - base_time_);
      time_field("dur", spans.end[span] - spans.start[span]);
      if (spans.detail[span] != kNoIndex) {
        span_args(trace_.span_details()[spans.detail[span]], track.info());
      }
      out_.raw('}');
    }
    const InstantColumns& instants = track.instants();
    for (std::size_t instant = 0; instant < instants.size(); ++instant) {
      begin_event();
      out_.raw("{\"ph\":\"i\",\"s\":\"t\",\"cat\":");
      out_.string(chrome_category(instants.category[instant]));
      out_.raw(",\"name\":");
      out_.string(trace_.string(instants.name[instant]));
      out_.raw(',');
      row_fields(row);
      time_field("ts", instants.time[instant] - base_time_);
      {
        ArgsWriter args(*this);
        args.free_form(trace_, trace_.args(instants.args[instant]));
      }
      out_.raw('}');
    }
    const CounterColumns& counters = track.counters();
    for (std::size_t sample = 0; sample < counters.size(); ++sample) {
      begin_event();
      out_.raw("{\"ph\":\"C\",\"name\":");
      out_.string(trace_.string(track.info().name));
      out_.raw(',');
      row_fields(row);
      time_field("ts", counters.time[sample] - base_time_);
      out_.raw(",\"args\":{\"value\":");
      out_.real(counters.value[sample]);
      out_.raw("}}");
    }
    const MemoryColumns& memory = track.memory();
    for (std::size_t event = 0; event < memory.size(); ++event) write_memory_event(track, row, event);
  }

  void write_memory_event(const Track& track, const ChromeRow& row, std::size_t event) {
    const MemoryColumns& memory = track.memory();
    const std::string_view pool = trace_.string(track.info().name);
    begin_event();
    out_.raw("{\"ph\":\"i\",\"s\":\"t\",\"name\":");
    out_.string(kKinetoMemoryEventName);
    out_.raw(',');
    row_fields(row);
    time_field("ts", memory.time[event] - base_time_);
    {
      ArgsWriter args(*this);
      const std::int32_t device = memory.device[event];
      args.integer("Device Type", device < 0 ? 0 : 1);  // Kineto: 0 CPU, 1 CUDA
      args.integer("Device Id", device);
      args.unsigned_integer("Addr", memory.address[event]);
      // Kineto's sign convention: a free is a negative allocation.
      const auto bytes = static_cast<std::int64_t>(memory.bytes[event]);
      args.integer("Bytes", memory.action[event] == MemoryAction::kFree ? -bytes : bytes);
      args.unsigned_integer("Total Allocated", memory.total_allocated[event]);
      args.unsigned_integer("Total Reserved", memory.total_reserved[event]);
      args.string(kMemoryPoolArg, pool);
      if (memory.owner_op[event] != kEmptyString) {
        args.string(kMemoryOpArg, trace_.string(memory.owner_op[event]));
      }
      if (memory.scope[event] != kEmptyString) {
        args.string(kMemoryScopeArg, trace_.string(memory.scope[event]));
      }
    }
    out_.raw("}");
    // The allocator totals again as a counter, which viewers draw as a memory curve.
    begin_event();
    out_.raw("{\"ph\":\"C\",\"cat\":");
    out_.string(kMemoryCounterCategory);
    out_.raw(",\"name\":");
    out_.string(pool);
    out_.raw(',');
    row_fields(row);
    time_field("ts", memory.time[event] - base_time_);
    out_.raw(",\"args\":{\"Total Allocated\":");
    out_.unsigned_integer(memory.total_allocated[event]);
    out_.raw(",\"Total Reserved\":");
    out_.unsigned_integer(memory.total_reserved[event]);
    out_.raw("}}");
  }

  void flow_end(const Flow& flow, const EventRef& end, bool is_start) {
    const Track& track = trace_.track(end.track);
    begin_event();
    out_.raw(is_start ? "{\"ph\":\"s\",\"id\":" : "{\"ph\":\"f\",\"bp\":\"e\",\"id\":");
    out_.unsigned_integer(flow.id);
    out_.raw(",\"cat\":");
    out_.string(chrome_flow_category(flow.kind));
    out_.raw(",\"name\":");
    out_.string(chrome_flow_category(flow.kind));
    out_.raw(',');
    row_fields(row_of(track));
    time_field("ts", track.spans().start[end.index] - base_time_);
    out_.raw('}');
  }

  void write_flow(const Flow& flow) {
    // Chrome flows bind to slices; arrows from instants or samples have no JSON form.
    if (flow.from.kind != EventKind::kSpan || flow.to.kind != EventKind::kSpan) return;
    flow_end(flow, flow.from, true);
    flow_end(flow, flow.to, false);
  }

  const Trace& trace_;
  ChromeJsonOutput out_;
  TimeNs base_time_;
  bool first_event_ = true;
};

}  // namespace

void write_chrome_json(const Trace& trace, const std::filesystem::path& path) {
  ChromeJsonWriter(trace, path).write();
}

}  // namespace tscope::trace
