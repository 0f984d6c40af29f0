#pragma once
// Overlaps reading with model building: where a second core exists, a background thread reads
// (and inflates) the text and cuts it into windows while the importer parses the previous ones.
// Windows are handed over through a short queue of reused buffers, a lock per window and never
// per event; an error of the reading thread is rethrown to the importer.

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "chrome_event_windows.h"

namespace tscope::trace::chrome_json {

class ChromeWindowPipeline {
 public:
  // Reads on a background thread only when `background` (and more than one core exists).
  ChromeWindowPipeline(ChromeEventWindows& windows, bool background);
  ~ChromeWindowPipeline();
  ChromeWindowPipeline(const ChromeWindowPipeline&) = delete;
  ChromeWindowPipeline& operator=(const ChromeWindowPipeline&) = delete;

  // The next window, or nullptr once the text is exhausted (the windows' members_after() and
  // lost_bytes() are final then). Valid until the next call. Rethrows what the reading failed on.
  const ChromeEventWindow* next();

 private:
  void read_ahead();

  ChromeEventWindows& windows_;
  // Two windows in flight: one being parsed, one being read.
  std::vector<ChromeEventWindow> buffers_;
  ChromeEventWindow* in_use_ = nullptr;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<ChromeEventWindow*> filled_;
  std::deque<ChromeEventWindow*> free_;
  bool finished_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread reader_;
};

}  // namespace tscope::trace::chrome_json
