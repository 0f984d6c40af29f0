#include "whatif_edits.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "event_classes.h"
#include "tscope/analyzer/errors.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kEditForms =
    "expected NAME*F, op:NAME*F, kernel:NAME*F, input-wait*F, remove-sync:NAME or "
    "graph-launch:NAME (NAME a regular expression found in names, F the share of the measured "
    "time the work takes, e.g. kernel:sgemm*0.5)";

[[noreturn]] void malformed(std::string_view text, std::string_view why) {
  throw AnalyzerError("--edit '" + std::string(text) + "': " + std::string(why) + "; " +
                      std::string(kEditForms));
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
  if (edit.target != EditTarget::kInputWait) {
    if (edit.pattern.empty()) malformed(edit.text, "no name to match");
    try {
      NameRegex{edit.pattern};
    } catch (const NameRegexError& error) {
      malformed(edit.text, "'" + edit.pattern +
                               "' is not a valid regular expression: " + std::string(error.what()));
    }
  }
  return edit;
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
  for (const WhatIfEdit& edit : edits_) {
    if (edit.target == EditTarget::kInputWait) {
      patterns_.emplace_back();
      input_wait_factor_ *= edit.factor;
    } else {
      patterns_.emplace_back(NameRegex(edit.pattern));
    }
  }
  count_matches();
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
    if (edit.target == EditTarget::kInputWait || !pattern_found(e, name)) continue;
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
}

}  // namespace tscope::analyzer
