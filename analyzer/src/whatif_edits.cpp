#include "whatif_edits.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "event_classes.h"
#include "tscope/analyzer/errors.h"

namespace tscope::analyzer {
namespace {

constexpr unsigned kMaxLoaderWorkers = 4096;

constexpr std::string_view kEditForms =
    "expected NAME*F, op:NAME*F, kernel:NAME*F, input-wait*F, workers=N, remove-sync:NAME, "
    "graph-launch:NAME or fuse:NAME1>NAME2>...*F (NAME a regular expression found in names, "
    "'>' in it written '\\>', F the share of the measured time the work takes, e.g. "
    "kernel:sgemm*0.5)";

[[noreturn]] void malformed(std::string_view text, std::string_view why) {
  throw AnalyzerError("--edit '" + std::string(text) + "': " + std::string(why) + "; " +
                      std::string(kEditForms));
}

// Splits a chain at each '>' that no backslash escapes.
std::vector<std::string> chain_members(std::string_view chain) {
  std::vector<std::string> members(1);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (chain[i] == '>' && (i == 0 || chain[i - 1] != '\\')) {
      members.emplace_back();
    } else {
      members.back() += chain[i];
    }
  }
  return members;
}

void check_pattern(std::string_view text, const std::string& pattern) {
  if (pattern.empty()) malformed(text, "no name to match");
  try {
    NameRegex{pattern};
  } catch (const NameRegexError& error) {
    malformed(text,
              "'" + pattern + "' is not a valid regular expression: " + std::string(error.what()));
  }
}

// Splits "PATTERN*F" at its last '*', which may follow a '*' of the pattern itself.
std::pair<std::string_view, double> scaled(std::string_view text, std::string_view body) {
  const std::size_t star = body.rfind('*');
  if (star == std::string_view::npos) malformed(text, "no factor after a '*'");
  const std::string_view number = body.substr(star + 1);
  double factor = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), factor);
  if (error != std::errc{} || end != number.data() + number.size() || number.empty())
    malformed(text, "'" + std::string(number) + "' is not a number");
  if (!std::isfinite(factor) || factor < 0) malformed(text, "the factor must be 0 or more");
  return {body.substr(0, star), factor};
}

bool is_synchronizing(trace::Category category, std::string_view name) {
  return is_sync_call(category, name) || (is_runtime_call(category) && is_blocking_copy_call(name));
}

}  // namespace

WhatIfEdit parse_edit(std::string_view text) {
  WhatIfEdit edit;
  edit.text = std::string(text);
  const auto take_prefix = [&](std::string_view prefix) {
    if (!text.starts_with(prefix)) return false;
    text.remove_prefix(prefix.size());
    return true;
  };
  if (take_prefix("remove-sync:")) {
    edit.target = EditTarget::kRemoveSync;
    edit.pattern = std::string(text);
    edit.factor = 0;
  } else if (take_prefix("graph-launch:")) {
    edit.target = EditTarget::kGraphLaunch;
    edit.pattern = std::string(text);
    edit.factor = 0;
  } else if (take_prefix("fuse:")) {
    edit.target = EditTarget::kFuse;
    const auto [chain, factor] = scaled(edit.text, text);
    edit.pattern = std::string(chain);
    edit.factor = factor;
    edit.chain = chain_members(chain);
    if (edit.chain.size() < 2) malformed(edit.text, "a chain names two members or more");
  } else if (take_prefix("workers=")) {
    edit.target = EditTarget::kLoaderWorkers;
    unsigned workers = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), workers);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty() || workers == 0 ||
        workers > kMaxLoaderWorkers) {
      malformed(edit.text, "'" + std::string(text) + "' is not a worker count from 1 to " +
                               std::to_string(kMaxLoaderWorkers));
    }
    edit.factor = workers;
  } else if (text.starts_with("input-wait*")) {
    edit.target = EditTarget::kInputWait;
    edit.factor = scaled(edit.text, text).second;
    if (scaled(edit.text, text).first != "input-wait") malformed(edit.text, "unknown target");
  } else {
    if (take_prefix("op:")) {
      edit.target = EditTarget::kOp;
    } else if (take_prefix("kernel:")) {
      edit.target = EditTarget::kKernel;
    }
    const auto [pattern, factor] = scaled(edit.text, text);
    edit.pattern = std::string(pattern);
    edit.factor = factor;
  }
  if (edit.target == EditTarget::kFuse) {
    for (const std::string& member : edit.chain)
      check_pattern(edit.text, member);
  } else if (edit.target != EditTarget::kInputWait && edit.target != EditTarget::kLoaderWorkers) {
    check_pattern(edit.text, edit.pattern);
  }
  return edit;
}

std::string fuse_edit(std::span<const std::string> names, double factor) {
  std::string edit = "fuse:";
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string member = NameRegex::exactly(names[i]);
    // A '>' of the name is quoted already ("\\>"), so it never splits the chain.
    edit += (i == 0 ? "" : ">") + member;
  }
  return edit + "*" + fmt::format("{:.4g}", factor);
}

std::string exact_names_pattern(std::span<const std::string> names) {
  std::string pattern;
  for (const std::string& name : names)
    pattern += (pattern.empty() ? "" : "|") + NameRegex::exactly(name);
  return pattern;
}

std::string step_names_pattern(const StepSet& steps) {
  // The whole trace as one step: every host span is in it.
  if (steps.whole_trace) return ".";
  std::vector<std::string> patterns;
  for (const Step& step : steps.steps) {
    std::string pattern;
    bool in_digits = false;
    for (const char c : NameRegex::exactly(step.name)) {
      const bool digit = c >= '0' && c <= '9';
      if (digit && !in_digits) pattern += "\\d+";
      if (!digit) pattern += c;
      in_digits = digit;
    }
    if (std::find(patterns.begin(), patterns.end(), pattern) == patterns.end())
      patterns.push_back(pattern);
  }
  std::string joined;
  for (const std::string& pattern : patterns)
    joined += (joined.empty() ? "" : "|") + pattern;
  return joined;
}

ResolvedEdits::ResolvedEdits(const trace::Trace& trace, std::span<const WhatIfEdit> edits)
    : trace_(&trace),
      edits_(edits.begin(), edits.end()),
      by_name_(trace.strings().size()),
      found_by_name_(edits.size()),
      matches_(edits.size(), 0) {
  for (std::size_t e = 0; e < edits_.size(); ++e) {
    const WhatIfEdit& edit = edits_[e];
    if (edit.target == EditTarget::kInputWait || edit.target == EditTarget::kFuse ||
        edit.target == EditTarget::kLoaderWorkers) {
      patterns_.emplace_back();
    } else {
      patterns_.emplace_back(NameRegex(edit.pattern));
    }
    if (edit.target == EditTarget::kInputWait) input_wait_factor_ *= edit.factor;
    if (edit.target == EditTarget::kSpan || edit.target == EditTarget::kOp)
      scales_host_spans_ = true;
    // The loader's pace bounds the steps instead of their waits (StepReplay).
    if (edit.target == EditTarget::kLoaderWorkers) {
      loader_workers_ = static_cast<unsigned>(edit.factor);
      input_wait_factor_ = 0;
    }
    if (edit.target == EditTarget::kFuse) {
      FuseChain chain{e, edit.factor, {}, {}};
      for (const std::string& member : edit.chain)
        chain.members.emplace_back(member);
      chain.found_by_name.resize(chain.members.size());
      chains_.push_back(std::move(chain));
    }
  }
  count_matches();
}

bool ResolvedEdits::chain_member(std::size_t chain, std::size_t member, trace::StringId name) {
  FuseChain& fuse = chains_[chain];
  std::vector<std::uint8_t>& found = fuse.found_by_name[member];
  if (found.empty()) found.assign(trace_->strings().size(), 0);
  if (found[name] == 0) found[name] = fuse.members[member].found_in(trace_->string(name)) ? 2 : 1;
  return found[name] == 2;
}

bool ResolvedEdits::pattern_found(std::size_t e, trace::StringId name) {
  std::vector<std::uint8_t>& found = found_by_name_[e];
  if (found.empty()) found.assign(trace_->strings().size(), 0);
  if (found[name] == 0) found[name] = patterns_[e]->found_in(trace_->string(name)) ? 2 : 1;
  return found[name] == 2;
}

ResolvedEdits::NameEffect& ResolvedEdits::known(trace::StringId name) {
  NameEffect& effect = by_name_[name];
  if (effect.set) return effect;
  effect.set = true;
  for (std::size_t e = 0; e < edits_.size(); ++e) {
    const WhatIfEdit& edit = edits_[e];
    if (edit.target == EditTarget::kInputWait || edit.target == EditTarget::kFuse ||
        edit.target == EditTarget::kLoaderWorkers || !pattern_found(e, name)) {
      continue;
    }
    if (edit.target == EditTarget::kSpan || edit.target == EditTarget::kOp)
      effect.host_factor *= edit.factor;
    if (edit.target == EditTarget::kSpan || edit.target == EditTarget::kKernel)
      effect.gpu_factor *= edit.factor;
    if (edit.target == EditTarget::kRemoveSync) effect.removes_sync = true;
    if (edit.target == EditTarget::kGraphLaunch) effect.graph_region = true;
  }
  return effect;
}

void ResolvedEdits::count_matches() {
  const trace::Trace& trace = *trace_;
  ClassByName<GpuWork> gpu_work_by_name;
  ClassByName<HostActivity> host_activity_by_name;
  ClassByName<bool> synchronizing_by_name;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const trace::TrackKind kind = trace.track(track).info().kind;
    const bool gpu = kind == trace::TrackKind::kGpuStream;
    if (!gpu && kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = trace.track(track).spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      const trace::StringId name = spans.name[i];
      const trace::Category category = spans.category[i];
      if (gpu && gpu_work_by_name.get(trace, category, name, &gpu_work) == GpuWork::kNone) continue;
      for (std::size_t e = 0; e < edits_.size(); ++e) {
        const EditTarget target = edits_[e].target;
        bool changes = false;
        if (target == EditTarget::kInputWait) {
          changes = !gpu && host_activity_by_name.get(trace, category, name, &host_activity) ==
                                HostActivity::kDataWait;
        } else if (target == EditTarget::kLoaderWorkers) {
          changes = category == trace::Category::kDataLoaderLoad;
        } else if (target == EditTarget::kGraphLaunch) {
          changes = !gpu && pattern_found(e, name);
        } else if (target == EditTarget::kRemoveSync) {
          changes = !gpu && synchronizing_by_name.get(trace, category, name, &is_synchronizing) &&
                    pattern_found(e, name);
        } else if (target == EditTarget::kSpan ||
                   target == (gpu ? EditTarget::kKernel : EditTarget::kOp)) {
          changes = pattern_found(e, name);
        }
        matches_[e] += changes ? 1 : 0;
      }
    }
  }
  if (chains_.empty()) return;
  // A chain's runs: on a stream among its GPU activities, on a host thread among its spans at one
  // depth, each in time order.
  std::vector<trace::StringId> names;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const trace::Track& row = trace.track(track);
    const trace::SpanColumns& spans = row.spans();
    const auto count_runs = [&] {
      for (std::size_t chain = 0; chain < chains_.size(); ++chain)
        for_each_run(chain, names, [&](std::size_t) { ++matches_[chains_[chain].edit]; });
    };
    if (row.info().kind == trace::TrackKind::kGpuStream) {
      names.clear();
      for (std::uint32_t i = 0; i < spans.size(); ++i) {
        if (gpu_work_by_name.get(trace, spans.category[i], spans.name[i], &gpu_work) !=
            GpuWork::kNone) {
          names.push_back(spans.name[i]);
        }
      }
      count_runs();
    } else if (row.info().kind == trace::TrackKind::kHostThread) {
      for (std::size_t depth = 0; depth < row.depth_count(); ++depth) {
        names.clear();
        for (const std::uint32_t i : row.spans_at_depth(depth))
          names.push_back(spans.name[i]);
        count_runs();
      }
    }
  }
}

}  // namespace tscope::analyzer
