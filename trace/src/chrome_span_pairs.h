#pragma once
// Pairs the two events of Chrome spans written as a begin and an end (B/E per thread; b/e and the
// older S/F async spans per category and id): in time order, since writers need not emit them
// sorted, each end closing the latest open begin. An end with nothing open, and a begin never
// closed, make no span; the importer counts them.

#include <algorithm>
#include <cstdint>
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

struct Unpaired {
  std::uint64_t ends = 0;    // ends with no begin open
  std::uint64_t begins = 0;  // begins never closed
};

// Calls on_pair(begin, end_time) for each matched pair; sorts `ends`.
template <typename OnPair>
Unpaired match_pairs(std::vector<BeginEnd>& ends, OnPair&& on_pair) {
  std::stable_sort(ends.begin(), ends.end(),
                   [](const BeginEnd& a, const BeginEnd& b) { return a.time < b.time; });
  std::vector<const BeginEnd*> open;
  Unpaired unpaired;
  for (const BeginEnd& end : ends) {
    if (end.begin) {
      open.push_back(&end);
    } else if (!open.empty()) {
      on_pair(*open.back(), end.time);
      open.pop_back();
    } else {
      ++unpaired.ends;
    }
  }
  unpaired.begins = open.size();
  return unpaired;
}

}  // namespace tscope::trace::chrome_json
