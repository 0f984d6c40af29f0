#pragma once
// Pairs the two events of Chrome spans written as a begin and an end (B/E per thread; b/e and the
// older S/F async spans per category and id): in time order, since writers need not emit them
// sorted, each end closing the latest open begin. An end with nothing open is ignored.

#include <algorithm>
#include <vector>

#include "chrome_raw_event.h"
#include "tscope/trace/records.h"

namespace tscope::trace::chrome_json {

struct BeginEnd {
  TimeNs time = 0;
  RawEvent event;
  bool begin = true;
};

// Calls on_pair(begin, end_time) for each matched pair; sorts `ends`.
template <typename OnPair>
void match_pairs(std::vector<BeginEnd>& ends, OnPair&& on_pair) {
  std::stable_sort(ends.begin(), ends.end(),
                   [](const BeginEnd& a, const BeginEnd& b) { return a.time < b.time; });
  std::vector<const BeginEnd*> open;
  for (const BeginEnd& end : ends) {
    if (end.begin) {
      open.push_back(&end);
    } else if (!open.empty()) {
      on_pair(*open.back(), end.time);
      open.pop_back();
    }
  }
}

}  // namespace tscope::trace::chrome_json
