// Finds the collectives of one rank's trace and reduces each to a CollectiveRecord: its host span,
// the arguments Kineto's record_param_comms (and our engine, in the same spelling) give it, and
// the communication kernels its launches started.

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <utility>

#include "event_classes.h"
#include "trace_names.h"
#include "tscope/analyzer/rank_summary.h"
#include "tscope/trace/named_values.h"

namespace tscope::analyzer {
namespace {

// Longer names first where one contains another ("reduce_scatter" before "reduce").
constexpr auto kOpNames = std::to_array<trace::NamedValue<CollectiveOp>>({
    {"allreduce", CollectiveOp::kAllReduce},
    {"reducescatter", CollectiveOp::kReduceScatter},
    {"allgather", CollectiveOp::kAllGather},
    {"alltoall", CollectiveOp::kAllToAll},
    {"broadcast", CollectiveOp::kBroadcast},
    {"barrier", CollectiveOp::kBarrier},
    {"reduce", CollectiveOp::kReduce},
    {"sendrecv", CollectiveOp::kSendRecv},
    {"send", CollectiveOp::kSendRecv},
    {"recv", CollectiveOp::kSendRecv},
});

// Prefixes of the host ranges process groups open around a collective (PyTorch's
// ProcessGroupNCCL/Gloo/UCC, our engine's MPI and NCCL groups).
constexpr std::array<std::string_view, 6> kBackendPrefixes{
    "nccl:", "rccl:", "mpi:", "gloo:", "ucc:", "xccl:"};

bool is_collective_span(Category category, std::string_view name) {
  if (category == Category::kCommunication) return true;
  if (category != Category::kUserAnnotation && category != Category::kCpuOp) return false;
  return std::any_of(kBackendPrefixes.begin(), kBackendPrefixes.end(),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

// Kineto's dtype names as record_param_comms writes them.
std::uint64_t dtype_bytes(std::string_view dtype) {
  if (dtype == "Double" || dtype == "Long" || dtype == "ComplexFloat") return 8;
  if (dtype == "Float" || dtype == "Int") return 4;
  if (dtype == "Half" || dtype == "BFloat16" || dtype == "Short") return 2;
  if (dtype == "Byte" || dtype == "Char" || dtype == "Bool" || dtype.starts_with("Float8"))
    return 1;
  return 0;
}

struct CommArgs {
  std::optional<std::int64_t> seq;
  std::optional<std::int64_t> bytes;
  std::optional<std::int64_t> in_nelems;
  std::optional<std::int64_t> out_nelems;
  std::optional<std::int64_t> group_size;
  std::optional<std::string> group;
  std::optional<std::string> collective_name;
  std::optional<std::string> dtype;

  // Fills what this one lacks from `other` (the enclosing record_param_comms).
  void fill_from(const CommArgs& other) {
    const auto fill = [](auto& mine, const auto& theirs) {
      if (!mine) mine = theirs;
    };
    fill(seq, other.seq);
    fill(bytes, other.bytes);
    fill(in_nelems, other.in_nelems);
    fill(out_nelems, other.out_nelems);
    fill(group_size, other.group_size);
    fill(group, other.group);
    fill(collective_name, other.collective_name);
    fill(dtype, other.dtype);
  }
};

std::optional<std::int64_t> integer_of(const trace::ArgValue& value, const trace::Trace& trace) {
  if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
  if (const auto* real = std::get_if<double>(&value)) return static_cast<std::int64_t>(*real);
  const std::string_view text = trace.string(std::get<trace::StringArg>(value).id);
  std::int64_t parsed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return parsed;
}

std::string text_of(const trace::ArgValue& value, const trace::Trace& trace) {
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  if (const auto* real = std::get_if<double>(&value)) return std::to_string(*real);
  return std::string(trace.string(std::get<trace::StringArg>(value).id));
}

CommArgs comm_args(const trace::Trace& trace, std::uint32_t track, std::uint32_t span) {
  CommArgs args;
  const trace::SpanDetail* detail = trace.span_detail(track, span);
  if (detail == nullptr) return args;
  for (const trace::Arg& arg : trace.args(detail->args)) {
    const std::string_view key = trace.string(arg.key);
    if (key == "Seq")
      args.seq = integer_of(arg.value, trace);
    else if (key == "bytes")
      args.bytes = integer_of(arg.value, trace);
    else if (key == "In msg nelems")
      args.in_nelems = integer_of(arg.value, trace);
    else if (key == "Out msg nelems")
      args.out_nelems = integer_of(arg.value, trace);
    else if (key == "Group size")
      args.group_size = integer_of(arg.value, trace);
    else if (key == "Process Group Name")
      args.group = text_of(arg.value, trace);
    else if (key == "Collective name")
      args.collective_name = text_of(arg.value, trace);
    else if (key == "dtype")
      args.dtype = text_of(arg.value, trace);
  }
  return args;
}

// nccl-tests' convention (its PERFORMANCE.md): all_gather's size is the gathered output, every
// other collective's the input (for reduce_scatter, the whole input being scattered).
std::uint64_t message_bytes(const CommArgs& args, CollectiveOp op) {
  const std::uint64_t element = args.dtype ? dtype_bytes(*args.dtype) : 0;
  if (op == CollectiveOp::kAllGather) {
    if (args.out_nelems && element > 0)
      return static_cast<std::uint64_t>(*args.out_nelems) * element;
    if (args.bytes && args.group_size)
      return static_cast<std::uint64_t>(*args.bytes * *args.group_size);
    return 0;
  }
  if (args.bytes) return static_cast<std::uint64_t>(*args.bytes);
  if (args.in_nelems && element > 0) return static_cast<std::uint64_t>(*args.in_nelems) * element;
  return 0;
}

struct KernelLaunch {
  TimeNs launch = 0;
  TimeNs start = 0;
  TimeNs end = 0;
  trace::EventRef kernel;
};

// Per host track, the communication kernels its runtime calls launched, by launch time.
std::map<std::uint32_t, std::vector<KernelLaunch>> communication_launches(
    const trace::Trace& trace) {
  std::map<std::uint32_t, std::vector<KernelLaunch>> launches;
  for (const trace::Flow& flow : trace.flows()) {
    if (flow.kind != trace::FlowKind::kLaunchToKernel || flow.to.kind != trace::EventKind::kSpan)
      continue;
    const trace::SpanColumns& kernels = trace.track(flow.to.track).spans();
    if (gpu_work(kernels.category[flow.to.index], trace.string(kernels.name[flow.to.index])) !=
        GpuWork::kCommunication) {
      continue;
    }
    const trace::SpanColumns& host = trace.track(flow.from.track).spans();
    launches[flow.from.track].push_back({host.start[flow.from.index], kernels.start[flow.to.index],
                                         kernels.end(flow.to.index), flow.to});
  }
  for (auto& [track, list] : launches) {
    std::sort(list.begin(), list.end(),
              [](const KernelLaunch& a, const KernelLaunch& b) { return a.launch < b.launch; });
  }
  return launches;
}

std::uint16_t group_index(std::vector<std::string>& groups, const std::string& name) {
  const auto found = std::find(groups.begin(), groups.end(), name);
  if (found != groups.end()) return static_cast<std::uint16_t>(found - groups.begin());
  groups.push_back(name);
  return static_cast<std::uint16_t>(groups.size() - 1);
}

}  // namespace

std::string_view to_string(CollectiveOp op) {
  static constexpr std::array kNames{"all_reduce", "broadcast",      "reduce",
                                     "all_gather", "reduce_scatter", "all_to_all",
                                     "barrier",    "send_recv",      "other"};
  return kNames[static_cast<std::size_t>(op)];
}

CollectiveOp collective_op_named(std::string_view name) {
  if (const std::size_t colon = name.rfind(':'); colon != std::string_view::npos)
    name.remove_prefix(colon + 1);
  std::string letters;
  for (const char c : name) {
    if (c != '_') letters += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  const auto* entry = trace::first_contained_in(kOpNames, letters);
  return entry != nullptr ? entry->value : CollectiveOp::kOther;
}

std::vector<CollectiveRecord> find_collectives(const trace::Trace& trace,
                                               std::vector<std::string>& groups) {
  const auto launches = communication_launches(trace);
  const std::optional<trace::StringId> record_param_comms =
      trace.strings().find("record_param_comms");
  std::vector<CollectiveRecord> records;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    std::vector<std::uint32_t> param_spans;
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (record_param_comms && spans.name[i] == *record_param_comms) param_spans.push_back(i);
    }
    const auto found_launches = launches.find(track_index);
    const auto add_record = [&](std::uint32_t i, const CommArgs& args, std::string_view name) {
      CollectiveRecord record;
      record.op = collective_op_named(args.collective_name ? *args.collective_name : name);
      record.host_start = spans.start[i];
      record.span = {trace::EventKind::kSpan, track_index, i};
      record.arrival = spans.start[i];
      record.end = spans.end(i);
      record.seq = args.seq.value_or(-1);
      record.bytes = message_bytes(args, record.op);
      record.group = group_index(groups, args.group.value_or(""));
      record.group_size = static_cast<std::uint16_t>(args.group_size.value_or(0));
      if (found_launches != launches.end()) {
        const std::vector<KernelLaunch>& list = found_launches->second;
        auto at = std::lower_bound(
            list.begin(), list.end(), spans.start[i],
            [](const KernelLaunch& launch, TimeNs time) { return launch.launch < time; });
        std::size_t kernels = 0;
        for (; at != list.end() && at->launch <= spans.end(i); ++at) {
          record.arrival = record.on_gpu ? std::min(record.arrival, at->start) : at->start;
          record.end = record.on_gpu ? std::max(record.end, at->end) : at->end;
          record.on_gpu = true;
          record.kernel = at->kernel;
          ++kernels;
        }
        record.single_kernel = kernels == 1;
      }
      records.push_back(record);
    };
    std::vector<bool> param_span_used(param_spans.size(), false);
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      const std::string_view name = trace.string(spans.name[i]);
      if (!is_collective_span(spans.category[i], name)) continue;
      CommArgs args = comm_args(trace, track_index, i);
      // The record_param_comms that encloses this range, if any: the last one starting at or before
      // it.
      const auto after = std::upper_bound(
          param_spans.begin(), param_spans.end(), spans.start[i],
          [&](TimeNs time, std::uint32_t span) { return time < spans.start[span]; });
      if (after != param_spans.begin() && spans.end(*(after - 1)) >= spans.end(i)) {
        args.fill_from(comm_args(trace, track_index, *(after - 1)));
        param_span_used[static_cast<std::size_t>(after - 1 - param_spans.begin())] = true;
      }
      add_record(i, args, name);
    }
    // A record_param_comms around no `<backend>:` range (PyTorch versions without them) is the
    // collective itself, when it names one (PyTorch also records a work's "wait" this way).
    for (std::size_t k = 0; k < param_spans.size(); ++k) {
      if (param_span_used[k]) continue;
      const CommArgs args = comm_args(trace, track_index, param_spans[k]);
      if (args.collective_name &&
          collective_op_named(*args.collective_name) != CollectiveOp::kOther) {
        add_record(param_spans[k], args, *args.collective_name);
      }
    }
  }
  std::sort(records.begin(), records.end(),
            [](const CollectiveRecord& a, const CollectiveRecord& b) {
              return a.host_start < b.host_start;
            });
  // Matching without sequence numbers goes by this order: host order per group and op.
  std::map<std::pair<std::uint16_t, CollectiveOp>, std::uint32_t> order;
  for (CollectiveRecord& record : records)
    record.order = order[{record.group, record.op}]++;
  return records;
}

}  // namespace tscope::analyzer
