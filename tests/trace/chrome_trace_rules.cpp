#include "chrome_trace_rules.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "tscope/trace/chrome_json_input.h"
#include "tscope/trace/chrome_kineto_names.h"

namespace tscope::trace {
namespace {

namespace dom = simdjson::dom;

constexpr std::size_t kViolationsPerRule = 5;

struct Row {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  auto operator<=>(const Row&) const = default;
};

struct Slice {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::string_view name;
  std::string_view cat;
  std::optional<std::uint64_t> correlation;
};

struct FlowEvent {
  char phase = 0;
  std::string_view cat;
  std::string id;
  Row row;
  std::int64_t time = 0;
  bool binds_enclosing = true;
};

class Checker {
 public:
  void violation(const std::string& rule, const std::string& detail) {
    if (++per_rule_[rule] <= kViolationsPerRule) report_.violations.push_back(rule + ": " + detail);
  }

  static std::optional<std::int64_t> integer(dom::element value) {
    if (value.type() == dom::element_type::INT64) return value.get_int64().value_unsafe();
    if (value.type() == dom::element_type::UINT64) {
      return static_cast<std::int64_t>(value.get_uint64().value_unsafe());
    }
    return std::nullopt;
  }

  static std::optional<double> number(dom::element value) {
    double result = 0;
    if (value.get_double().get(result) != simdjson::SUCCESS) return std::nullopt;
    return result;
  }

  // Microseconds as written by our exporter: relative, so a double holds their nanoseconds.
  static std::int64_t nanos(double micros) { return std::llround(micros * 1000.0); }

  static std::string_view text(dom::object object, std::string_view key) {
    dom::element value;
    if (object.at_key(key).get(value) != simdjson::SUCCESS) return {};
    return value.type() == dom::element_type::STRING ? value.get_string().value_unsafe()
                                                     : std::string_view{};
  }

  static std::optional<std::uint64_t> correlation_of(dom::object event) {
    for (const std::string_view member : {std::string_view("args"), kChromeSeparateArgsMember}) {
      dom::element args;
      if (event.at_key(member).get(args) != simdjson::SUCCESS) continue;
      dom::element value;
      if (args.type() != dom::element_type::OBJECT ||
          args.get_object().value_unsafe().at_key("correlation").get(value) != simdjson::SUCCESS) {
        continue;
      }
      if (const auto id = integer(value)) return static_cast<std::uint64_t>(*id);
    }
    return std::nullopt;
  }

  void event(dom::element element, std::size_t index) {
    ++report_.events;
    const std::string where = "event " + std::to_string(index);
    if (element.type() != dom::element_type::OBJECT) {
      violation("event is an object", where);
      return;
    }
    const dom::object object = element.get_object().value_unsafe();
    const std::string_view phase = text(object, "ph");
    if (phase.size() != 1) {
      violation("ph on every event", where);
      return;
    }
    dom::element pid;
    dom::element tid;
    dom::element ts;
    const bool has_pid = object.at_key("pid").get(pid) == simdjson::SUCCESS && integer(pid);
    const bool has_tid = object.at_key("tid").get(tid) == simdjson::SUCCESS && integer(tid);
    const bool has_ts = object.at_key("ts").get(ts) == simdjson::SUCCESS && number(ts);
    if (!has_pid || !has_tid) violation("numeric pid and tid on every event", where);
    if (!has_ts) violation("numeric ts on every event", where);
    if (!has_pid || !has_tid || !has_ts) return;
    const Row row{*integer(pid), *integer(tid)};
    const std::int64_t time = nanos(*number(ts));
    const std::string_view name = text(object, "name");
    switch (phase[0]) {
      case 'X': {
        dom::element dur;
        const auto duration = object.at_key("dur").get(dur) == simdjson::SUCCESS
                                  ? number(dur)
                                  : std::optional<double>{};
        if (!duration || *duration < 0) {
          violation("X dur >= 0", where + " " + std::string(name));
          return;
        }
        slices_[row].push_back(
            {time, time + nanos(*duration), name, text(object, "cat"), correlation_of(object)});
        ++report_.slices;
        return;
      }
      case 'B':
        ++open_[row];
        return;
      case 'E':
        if (--open_[row] < 0) violation("B/E balanced per thread", where + " E without B");
        return;
      case 'C': {
        dom::element args;
        if (object.at_key("args").get(args) != simdjson::SUCCESS ||
            args.type() != dom::element_type::OBJECT) {
          violation("counter args", where + " has none");
          return;
        }
        const dom::object values = args.get_object().value_unsafe();
        for (const dom::key_value_pair field : values) {
          if (!number(field.value))
            violation("numeric counter args", where + " " + std::string(field.key));
        }
        return;
      }
      case 's':
      case 'f': {
        dom::element id;
        std::string id_text;
        if (object.at_key("id").get(id) == simdjson::SUCCESS) id_text = simdjson::minify(id);
        if (id_text.empty()) violation("flow id", where);
        flows_.push_back({phase[0], text(object, "cat"), id_text, row, time,
                          phase[0] == 's' || text(object, "bp") == "e"});
        return;
      }
      default:
        return;
    }
  }

  void check_nesting() {
    for (auto& [row, slices] : slices_) {
      std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
      });
      std::vector<const Slice*> open;
      for (const Slice& slice : slices) {
        while (!open.empty() && open.back()->end <= slice.start)
          open.pop_back();
        if (!open.empty() && slice.end > open.back()->end) {
          violation("children within parents",
                    std::string(slice.name) + " [" + std::to_string(slice.start) + ", " +
                        std::to_string(slice.end) + "] crosses " + std::string(open.back()->name) +
                        " [" + std::to_string(open.back()->start) + ", " +
                        std::to_string(open.back()->end) + "]");
        }
        open.push_back(&slice);
      }
    }
    for (const auto& [row, open] : open_) {
      if (open > 0) violation("B/E balanced per thread", std::to_string(open) + " B without E");
    }
  }

  const Slice* bind(const FlowEvent& flow) const {
    const auto found = slices_.find(flow.row);
    if (found == slices_.end()) return nullptr;
    const std::vector<Slice>& slices = found->second;
    if (!flow.binds_enclosing) {
      const auto next =
          std::lower_bound(slices.begin(), slices.end(), flow.time,
                           [](const Slice& s, std::int64_t t) { return s.start < t; });
      return next == slices.end() ? nullptr : &*next;
    }
    auto after = std::upper_bound(slices.begin(), slices.end(), flow.time,
                                  [](std::int64_t t, const Slice& s) { return t < s.start; });
    while (after != slices.begin()) {
      --after;
      if (after->end >= flow.time) return &*after;
    }
    return nullptr;
  }

  void check_flows() {
    std::unordered_map<std::uint64_t, std::pair<Row, const Slice*>> launches;
    for (const auto& [row, slices] : slices_) {
      for (const Slice& slice : slices) {
        const bool launch = slice.cat == "cuda_runtime" || slice.cat == "cuda_driver";
        if (launch && slice.correlation) launches[*slice.correlation] = {row, &slice};
      }
    }
    struct Ends {
      std::vector<std::pair<const FlowEvent*, const Slice*>> starts;
      std::vector<std::pair<const FlowEvent*, const Slice*>> finishes;
    };
    std::map<std::pair<std::string_view, std::string>, Ends> by_id;
    for (const FlowEvent& flow : flows_) {
      const Slice* slice = bind(flow);
      if (slice == nullptr) {
        violation("every flow bound to a slice", std::string(1, flow.phase) + " id " + flow.id +
                                                     " at " + std::to_string(flow.time));
        continue;
      }
      Ends& ends = by_id[{flow.cat, flow.id}];
      (flow.phase == 's' ? ends.starts : ends.finishes).emplace_back(&flow, slice);
    }
    for (const auto& [key, ends] : by_id) {
      if (ends.starts.size() != 1 || ends.finishes.size() != 1) {
        violation("unique flow ids", std::string(key.first) + " id " + key.second + ": " +
                                         std::to_string(ends.starts.size()) + " starts, " +
                                         std::to_string(ends.finishes.size()) + " ends");
        continue;
      }
      ++report_.flows;
      const auto [start_event, start] = ends.starts.front();
      const auto [finish_event, finish] = ends.finishes.front();
      // The arrow runs forward in time. Its slices need not start in that order: a wait may
      // begin before the work it waits for (a handoff flow).
      if (start_event->time > finish_event->time) {
        violation("flow starts at or before it ends",
                  std::string(start->name) + " -> " + std::string(finish->name));
      }
      if (!finish->correlation) continue;
      const auto launch = launches.find(*finish->correlation);
      if (launch == launches.end()) continue;
      ++report_.flows_with_launch;
      const auto& [launch_row, launch_slice] = launch->second;
      if (launch_row == start_event->row && start->start <= launch_slice->start &&
          launch_slice->end <= start->end) {
        ++report_.flows_enclosing_launch;
      } else {
        violation("flow start encloses the launch",
                  std::string(start->name) + " does not enclose " +
                      std::string(launch_slice->name) + " of " + std::string(finish->name));
      }
    }
  }

  ChromeTraceReport report_;

 private:
  std::map<std::string, std::size_t> per_rule_;
  std::map<Row, std::vector<Slice>> slices_;
  std::map<Row, int> open_;
  std::vector<FlowEvent> flows_;
};

}  // namespace

ChromeTraceReport check_chrome_trace(const std::filesystem::path& path) {
  const ChromeJsonInput input = ChromeJsonInput::read_file(path);
  dom::parser parser;
  dom::element root;
  Checker checker;
  if (parser.parse(input.padded_data(), input.json().size(), false).get(root) !=
      simdjson::SUCCESS) {
    checker.violation("valid JSON", path.string());
    return checker.report_;
  }
  dom::element events = root;
  if (root.type() == dom::element_type::OBJECT &&
      root.get_object().value_unsafe().at_key("traceEvents").get(events) != simdjson::SUCCESS) {
    checker.violation("traceEvents array", path.string());
    return checker.report_;
  }
  if (events.type() != dom::element_type::ARRAY) {
    checker.violation("traceEvents array", path.string());
    return checker.report_;
  }
  std::size_t index = 0;
  const dom::array array = events.get_array().value_unsafe();
  for (const dom::element event : array)
    checker.event(event, index++);
  checker.check_nesting();
  checker.check_flows();
  return checker.report_;
}

}  // namespace tscope::trace
