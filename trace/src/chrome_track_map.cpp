#include "chrome_track_map.h"

#include "chrome_json_values.h"
#include "tscope/trace/chrome_kineto_names.h"

namespace tscope::trace::chrome_json {

void ChromeTrackMap::read_metadata_event(const RawEvent& event) {
  const RowId row = row_of(event);
  const auto value = [&](std::string_view key) { return arg(event, key); };
  if (event.name == "process_name") {
    if (const JsonValue name = value("name")) process_names_[row.pid] = as_string(name);
  } else if (event.name == "process_labels") {
    if (const JsonValue labels = value("labels")) process_labels_[row.pid] = as_string(labels);
  } else if (event.name == "process_sort_index") {
    if (const auto sort = as_integer(value("sort_index"))) {
      process_sort_[row.pid] = static_cast<std::int32_t>(*sort);
    }
  } else if (event.name == "thread_name") {
    if (const JsonValue name = value("name")) thread_names_[row] = as_string(name);
  } else if (event.name == "thread_sort_index") {
    if (const auto sort = as_integer(value("sort_index"))) {
      thread_sort_[row] = static_cast<std::int32_t>(*sort);
    }
  }
}

std::int64_t ChromeTrackMap::row_number(JsonValue value) {
  if (!value) return 0;
  if (const auto number = as_integer(value)) return *number;
  const std::string_view text = as_string(value);
  // Kineto names its GPU rows ("stream 7"), and events of one row mostly come together.
  if (last_named_row_ && last_named_row_->first == text) return last_named_row_->second;
  const auto [found, inserted] = named_rows_.try_emplace(
      std::string(text), kNamedRowBase - static_cast<std::int64_t>(named_rows_.size()));
  if (inserted) row_names_[found->second] = found->first;
  last_named_row_.emplace(found->first, found->second);
  return found->second;
}

RowId ChromeTrackMap::row_of(const RawEvent& event) {
  return {row_number(event.pid), row_number(event.tid)};
}

std::uint32_t ChromeTrackMap::process_for(std::int64_t pid, bool gpu) {
  const auto key = std::make_pair(pid, gpu);
  if (const auto found = processes_.find(key); found != processes_.end()) return found->second;
  Process process;
  process.pid = is_named_row(pid) ? -1 : pid;
  const std::uint32_t index = builder_.add_process(process);
  processes_.emplace(key, index);
  return index;
}

void ChromeTrackMap::name_process(std::uint32_t index, std::int64_t pid, bool gpu) {
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
  Process& process = builder_.process(index);
  process.name = builder_.intern(name);
  process.rank = gpu ? -1 : rank_;
  if (const auto sort = process_sort_.find(pid); sort != process_sort_.end()) {
    process.sort_index = sort->second;
  }
}

void ChromeTrackMap::apply_names() {
  for (const auto& [key, index] : processes_)
    name_process(index, key.first, key.second);
  for (const auto& [row, track] : created_host_tracks_)
    name_host_track(track, row);
  for (const auto& [key, track] : gpu_tracks_)
    name_gpu_track(track, key.first, key.second);
}

std::optional<RowId> ChromeTrackMap::overlapped_row(RowId row) const {
  const auto named = thread_names_.find(row);
  if (named == thread_names_.end() || !named->second.ends_with(kChromeOverlapRowSuffix)) {
    return std::nullopt;
  }
  // A view of the stored name, not of a temporary substring.
  const std::string_view base =
      std::string_view(named->second)
          .substr(0, named->second.size() - kChromeOverlapRowSuffix.size());
  for (const auto& [other, name] : thread_names_) {
    if (other.pid == row.pid && other != row && name == base) return other;
  }
  return std::nullopt;
}

std::uint32_t ChromeTrackMap::host_track(RowId row) {
  // Consecutive events mostly share a row.
  if (last_host_row_ && last_host_row_->first == row) return last_host_row_->second;
  if (const auto found = host_tracks_.find(row); found != host_tracks_.end()) {
    last_host_row_ = *found;
    return found->second;
  }
  if (const auto base = overlapped_row(row)) {
    const std::uint32_t track = host_track(*base);
    host_tracks_.emplace(row, track);
    return track;
  }
  TrackInfo info;
  info.kind = TrackKind::kHostThread;
  info.process = process_for(row.pid, false);
  info.thread_id = row.tid;
  const std::uint32_t track = builder_.add_track(info);
  host_tracks_.emplace(row, track);
  created_host_tracks_.emplace_back(row, track);
  return track;
}

void ChromeTrackMap::name_host_track(std::uint32_t track, RowId row) {
  TrackInfo& info = builder_.track_info(track);
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
}

std::uint32_t ChromeTrackMap::gpu_track(std::int64_t device, std::int64_t stream) {
  const auto key = std::make_pair(device, stream);
  if (const auto found = gpu_tracks_.find(key); found != gpu_tracks_.end()) return found->second;
  TrackInfo info;
  info.kind = TrackKind::kGpuStream;
  info.process = process_for(device, true);
  info.device = static_cast<std::int32_t>(device);
  info.stream = stream;
  const std::uint32_t track = builder_.add_track(info);
  gpu_tracks_.emplace(key, track);
  return track;
}

void ChromeTrackMap::name_gpu_track(std::uint32_t track, std::int64_t device, std::int64_t stream) {
  TrackInfo& info = builder_.track_info(track);
  const RowId kineto_row{device, stream};
  const auto named = thread_names_.find(kineto_row);
  info.name = builder_.intern(named != thread_names_.end() ? named->second
                                                           : "stream " + std::to_string(stream));
  if (const auto sort = thread_sort_.find(kineto_row); sort != thread_sort_.end()) {
    info.sort_index = sort->second;
  }
}

std::uint32_t ChromeTrackMap::named_track(std::int64_t pid, TrackKind kind, std::string_view name,
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

}  // namespace tscope::trace::chrome_json
