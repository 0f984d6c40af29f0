#pragma once
// Overlaps reading with model building: where a second core exists, a background thread reads
// (and inflates) the text, cuts it into windows and parses each (chrome_parsed_window.h) while the
// importer turns the previous ones into events. Windows are handed over through a short queue of
// reused buffers (each with its own parser, whose memory is reused too), a lock per window and
// never per event; an error of the reading thread is rethrown to the importer in file order.

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "chrome_parsed_window.h"

namespace tscope::trace::chrome_json {

class ChromeWindowPipeline {
 public:
  // Reads on a background thread only when `background` (and more than one core exists).
  ChromeWindowPipeline(ChromeEventWindows& windows, bool background);
  ~ChromeWindowPipeline();
  ChromeWindowPipeline(const ChromeWindowPipeline&) = delete;
  ChromeWindowPipeline& operator=(const ChromeWindowPipeline&) = delete;

  // The next window, or nullptr once the text is exhausted (the windows' members_after() and
  // lost_bytes() are final then). Valid until the next call. Rethrows what the reading failed on:
  // IoError, or FormatError naming the window's offset for text that is not JSON.
  const ParsedEventWindow* next();

 private:
  void read_ahead();
  // Cuts and parses the next window into `buffer`; false at the end of the events.
  bool fill(ParsedEventWindow& buffer);

  ChromeEventWindows& windows_;
  // Windows in flight: one being turned into events, the others being read and parsed.
  std::vector<ParsedEventWindow> buffers_;
  ParsedEventWindow* in_use_ = nullptr;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<ParsedEventWindow*> filled_;
  std::deque<ParsedEventWindow*> free_;
  bool finished_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread reader_;
};

}  // namespace tscope::trace::chrome_json
