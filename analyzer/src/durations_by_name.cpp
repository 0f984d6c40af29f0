#include "durations_by_name.h"

namespace tscope::analyzer {
namespace {

// The step of span `i` of a track: a GPU activity's from the context (`cursor` walks the
// stream's activities alongside ascending `i`), anything else's by its start.
std::size_t step_of_span(const AnalysisContext& context, const GpuStream* stream,
                         std::size_t& cursor, std::uint32_t track_index, std::uint32_t i) {
  const trace::SpanColumns& spans = context.trace().track(track_index).spans();
  if (stream == nullptr) return context.steps().step_at(spans.start[i]);
  while (cursor < stream->activities.size() && stream->activities[cursor].index < i)
    ++cursor;
  if (cursor < stream->activities.size() && stream->activities[cursor].index == i)
    return stream->activities[cursor].step;
  return context.step_of_gpu_activity({EventKind::kSpan, track_index, i});
}

}  // namespace

DurationsByName durations_by_name(const AnalysisContext& context, Category category) {
  const trace::Trace& trace = context.trace();
  DurationsByName result;
  // A name's slot in `result` (kNoSlot until seen), so that each event costs an index, not a hash.
  constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::vector<std::uint32_t> slot_of_name;
  std::size_t next_stream = 0;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::SpanColumns& spans = trace.track(track_index).spans();
    const GpuStream* stream = nullptr;
    if (trace.track(track_index).info().kind == TrackKind::kGpuStream)
      stream = &context.gpu_streams()[next_stream++];
    std::size_t cursor = 0;
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != category) continue;
      const std::size_t step = step_of_span(context, stream, cursor, track_index, i);
      if (step == context.steps().steps.size()) continue;
      const StringId name = spans.name[i];
      if (slot_of_name.size() <= name) slot_of_name.resize(name + 1, kNoSlot);
      if (slot_of_name[name] == kNoSlot) {
        slot_of_name[name] = static_cast<std::uint32_t>(result.durations.size());
        result.names.push_back(name);
        result.durations.emplace_back();
      }
      result.durations[slot_of_name[name]].push_back(spans.end(i) - spans.start[i]);
    }
  }
  return result;
}

}  // namespace tscope::analyzer
