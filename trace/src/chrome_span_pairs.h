#pragma once
// Pairs the two events of Chrome spans written as a begin and an end (B/E per thread; b/e and the
// older S/F async spans per category and id): in time order, since writers need not emit them
// sorted, each end closing the latest open begin. An end with nothing open is ignored.

#include <algorithm>
#include <string>
#include <vector>

#include "tscope/trace/records.h"

namespace tscope::trace::chrome_json {

// One end of such a span; a begin keeps its event's text (minified JSON) because the document
// it came from is gone by the time its end is read.
struct BeginEnd {
  TimeNs time = 0;
  std::string text;
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
