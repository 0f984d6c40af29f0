#include "chrome_window_pipeline.h"

#include <string>

#include "tscope/trace/errors.h"

namespace tscope::trace::chrome_json {
namespace {

constexpr std::size_t kBuffers = 3;

}  // namespace

ChromeWindowPipeline::ChromeWindowPipeline(ChromeEventWindows& windows, bool background)
    : windows_(windows), buffers_(kBuffers) {
  for (ParsedEventWindow& buffer : buffers_)
    free_.push_back(&buffer);
  if (background && std::thread::hardware_concurrency() > 1) {
    reader_ = std::thread([this] { read_ahead(); });
  }
}

ChromeWindowPipeline::~ChromeWindowPipeline() {
  if (!reader_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  reader_.join();
}

bool ChromeWindowPipeline::fill(ParsedEventWindow& buffer) {
  if (!windows_.next(buffer.window)) return false;
  if (parse_event_window(buffer)) return true;
  if (buffer.window.speculative) {
    // Cut where the text only looked like an event's end: cut again by the scan.
    windows_.put_back(buffer.window);
    if (!windows_.next(buffer.window)) return false;
    if (parse_event_window(buffer)) return true;
  }
  throw FormatError(windows_.source().source_name(), buffer.window.offset,
                    std::string("not valid JSON: ") + buffer.document.error());
}

void ChromeWindowPipeline::read_ahead() {
  try {
    for (;;) {
      ParsedEventWindow* buffer = nullptr;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || !free_.empty(); });
        if (stopping_) return;
        buffer = free_.front();
        free_.pop_front();
      }
      const bool more = fill(*buffer);
      {
        const std::lock_guard lock(mutex_);
        if (more) {
          filled_.push_back(buffer);
        } else {
          free_.push_back(buffer);
          finished_ = true;
        }
      }
      changed_.notify_all();
      if (!more) return;
    }
  } catch (...) {
    {
      const std::lock_guard lock(mutex_);
      error_ = std::current_exception();
      finished_ = true;
    }
    changed_.notify_all();
  }
}

const ParsedEventWindow* ChromeWindowPipeline::next() {
  if (!reader_.joinable()) {
    ParsedEventWindow& buffer = buffers_.front();
    return fill(buffer) ? &buffer : nullptr;
  }
  std::unique_lock lock(mutex_);
  if (in_use_ != nullptr) {
    free_.push_back(in_use_);
    in_use_ = nullptr;
    changed_.notify_all();
  }
  changed_.wait(lock, [&] { return !filled_.empty() || finished_; });
  if (!filled_.empty()) {
    in_use_ = filled_.front();
    filled_.pop_front();
    return in_use_;
  }
  if (error_) std::rethrow_exception(error_);
  return nullptr;
}

}  // namespace tscope::trace::chrome_json
