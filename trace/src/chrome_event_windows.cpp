#include "chrome_event_windows.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tscope/trace/errors.h"

namespace tscope::trace::chrome_json {
namespace {

// The text is read in chunks of this size; a window is handed out once it holds window_bytes.
constexpr std::size_t kReadChunk = std::size_t{256} << 10;
// Runs of whitespace shorter than this stay, so that ordinary indented text is never moved.
constexpr std::size_t kLongBlankRun = kReadChunk;

enum CharClass : std::uint8_t { kPlain, kSpace, kQuote, kOpen, kClose, kComma, kColon };

constexpr std::array<std::uint8_t, 256> char_classes() {
  std::array<std::uint8_t, 256> classes{};
  classes[' '] = classes['\t'] = classes['\n'] = classes['\r'] = kSpace;
  classes['"'] = kQuote;
  classes['{'] = classes['['] = kOpen;
  classes['}'] = classes[']'] = kClose;
  classes[','] = kComma;
  classes[':'] = kColon;
  return classes;
}
constexpr std::array<std::uint8_t, 256> kCharClass = char_classes();

constexpr std::string_view kTraceEventsKey = "traceEvents";
constexpr std::string_view kEmptyEvents = "\"traceEvents\":[]";

bool is_space(char c) {
  return kCharClass[static_cast<unsigned char>(c)] == kSpace;
}

// The scan looks at every byte of the file, so it skips sixteen at a time to the next byte that
// can matter: inside a string a quote or a backslash, inside an event a quote or a bracket (commas,
// colons and values change nothing there). '[' and '{', ']' and '}' differ only in bit 0x20.
struct QuoteOrBackslash {
  static bool matches(char c) { return c == '"' || c == '\\'; }
#if defined(__SSE2__)
  static int mask(__m128i block) {
    return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')),
                                          _mm_cmpeq_epi8(block, _mm_set1_epi8('\\'))));
  }
#endif
};

struct QuoteOrBracket {
  static bool matches(char c) {
    const char folded = static_cast<char>(c | 0x20);
    return c == '"' || folded == '{' || folded == '}';
  }
#if defined(__SSE2__)
  static int mask(__m128i block) {
    const __m128i folded = _mm_or_si128(block, _mm_set1_epi8(0x20));
    return _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')),
                     _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')),
                                  _mm_cmpeq_epi8(folded, _mm_set1_epi8('}')))));
  }
#endif
};

// Whitespace between events may run for gigabytes (a gzip of it is a few megabytes): the scan and
// the cut of such runs skip sixteen bytes at a time too.
struct NotBlank {
  static bool matches(char c) { return !is_space(c); }
#if defined(__SSE2__)
  static int mask(__m128i block) {
    const __m128i blank = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8(' ')),
                                                    _mm_cmpeq_epi8(block, _mm_set1_epi8('\n'))),
                                       _mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('\t')),
                                                    _mm_cmpeq_epi8(block, _mm_set1_epi8('\r'))));
    return ~_mm_movemask_epi8(blank) & 0xffff;
  }
#endif
};

// The first index from `at` below `size` whose byte Bytes::matches, `size` when there is none.
template <typename Bytes>
std::size_t find_first(const char* text, std::size_t at, std::size_t size) {
#if defined(__SSE2__)
  constexpr std::size_t kBlock = 16;
  for (; at + kBlock <= size; at += kBlock) {
    const int found = Bytes::mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text + at)));
    if (found != 0)
      return at + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(found)));
  }
#endif
  while (at < size && !Bytes::matches(text[at]))
    ++at;
  return at;
}

// The index after the last byte below `end` that Bytes::matches, 0 when there is none.
template <typename Bytes>
std::size_t find_last_end(const char* text, std::size_t end) {
#if defined(__SSE2__)
  constexpr std::size_t kBlock = 16;
  for (; end >= kBlock; end -= kBlock) {
    const int found =
        Bytes::mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text + end - kBlock)));
    if (found != 0)
      return end - static_cast<std::size_t>(std::countl_zero(static_cast<std::uint16_t>(found)));
  }
#endif
  while (end > 0 && !Bytes::matches(text[end - 1]))
    --end;
  return end;
}

// Inside an event the scan goes 64 bytes at a time, as bit masks (bit i for byte i): which bytes
// are quotes, backslashes, opening and closing brackets.
constexpr std::size_t kBlockBytes = 64;

struct BlockMasks {
  std::uint64_t quote = 0;
  std::uint64_t backslash = 0;
  std::uint64_t open = 0;
  std::uint64_t close = 0;
};

BlockMasks block_masks(const char* bytes) {
  BlockMasks masks;
#if defined(__SSE2__)
  constexpr int kLane = 16;
  for (int lane = 0; lane < static_cast<int>(kBlockBytes) / kLane; ++lane) {
    const __m128i block = _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(bytes + static_cast<std::ptrdiff_t>(lane) * kLane));
    const __m128i folded = _mm_or_si128(block, _mm_set1_epi8(0x20));
    const auto bits = [&](__m128i equal) {
      return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(equal)))
             << (lane * kLane);
    };
    masks.quote |= bits(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')));
    masks.backslash |= bits(_mm_cmpeq_epi8(block, _mm_set1_epi8('\\')));
    masks.open |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')));
    masks.close |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('}')));
  }
#else
  for (std::size_t index = 0; index < kBlockBytes; ++index) {
    const std::uint64_t bit = std::uint64_t{1} << index;
    const char c = bytes[index];
    const char folded = static_cast<char>(c | 0x20);
    if (c == '"') masks.quote |= bit;
    if (c == '\\') masks.backslash |= bit;
    if (folded == '{') masks.open |= bit;
    if (folded == '}') masks.close |= bit;
  }
#endif
  return masks;
}

// Bit i becomes the parity of bits 0..i: with quotes in, the bytes from an opening quote up to
// (not including) its closing one.
std::uint64_t prefix_xor(std::uint64_t bits) {
  for (int shift = 1; shift < 64; shift *= 2)
    bits ^= bits << shift;
  return bits;
}

}  // namespace

std::size_t ChromeEventWindows::scan_event_block(std::size_t at) {
  const BlockMasks masks = block_masks(pending_.data() + at);
  // An escape may hide a quote; such a block goes byte by byte.
  if (masks.backslash != 0) return at;
  std::uint64_t strings = prefix_xor(masks.quote);
  if (in_string_) strings = ~strings;
  for (std::uint64_t brackets = (masks.open | masks.close) & ~strings; brackets != 0;
       brackets &= brackets - 1) {
    const int bit = std::countr_zero(brackets);
    if ((masks.open >> bit) & 1) {
      ++depth_;
      continue;
    }
    --depth_;
    if (depth_ == events_depth_) {
      // An event ends; what lies between events goes byte by byte.
      last_event_end_ = at + static_cast<std::size_t>(bit) + 1;
      has_whole_event_ = true;
      in_string_ = false;
      return last_event_end_;
    }
  }
  in_string_ = (strings >> (kBlockBytes - 1)) & 1;
  return at + kBlockBytes;
}

ChromeEventWindows::ChromeEventWindows(ChromeByteSource& source, std::size_t window_bytes,
                                       std::size_t max_event_bytes)
    : source_(source), window_bytes_(window_bytes), max_event_bytes_(max_event_bytes) {}

bool ChromeEventWindows::read_more() {
  if (end_of_text_) return false;
  const std::size_t before = pending_size_;
  // The buffer only grows, so reads land in memory already there instead of being zeroed first;
  // a small input's buffer is only as large as its text (and one byte to see the end).
  const std::size_t chunk = source_.read_size(kReadChunk);
  pending_.reserve(before + chunk);
  const std::size_t count = source_.read(pending_.data() + before, chunk);
  if (count == 0) {
    end_of_text_ = true;
    return false;
  }
  pending_size_ += count;
  consumed_ += count;
  return true;
}

bool ChromeEventWindows::fill() {
  if (!read_more()) return false;
  scan_pending();
  return true;
}

void ChromeEventWindows::squeeze_blank_tail() {
  if (scanned_ != pending_size_ || in_string_ || part_ == Part::kDone) return;
  // Inside the event array only whitespace between events is cut: a window's offset is that of its
  // first event, which lies before whatever would be cut inside the window.
  if (part_ == Part::kEvents && (has_whole_event_ || depth_ != events_depth_)) return;
  const std::size_t blank_begin = find_last_end<NotBlank>(pending_.data(), pending_size_);
  const std::size_t run = pending_size_ - blank_begin;
  if (run < kLongBlankRun) return;
  // One blank byte stays, to keep the tokens on either side apart.
  pending_base_ += run - 1;
  pending_size_ = scanned_ = blank_begin + 1;
}

void ChromeEventWindows::check_held_text() const {
  std::size_t begin = 0;
  std::uint64_t offset = consumed_;
  const char* what = nullptr;
  switch (part_) {
    case Part::kMembersBefore:
      what = "the members before \"traceEvents\" are";
      break;
    case Part::kEvents:
      begin = skip_separator(has_whole_event_ ? last_event_end_ : events_begin_);
      offset = pending_base_ + begin;
      what = "an event is";
      break;
    case Part::kMembersAfter:
      begin = after_begin_;
      what = "the members after \"traceEvents\" are";
      break;
    case Part::kBeforeRoot:
    case Part::kDone:
      return;
  }
  if (pending_size_ - begin <= max_event_bytes_) return;
  throw FormatError(source_.source_name(), offset,
                    std::string(what) + " longer than the limit of " +
                        std::to_string(max_event_bytes_) + " bytes");
}

void ChromeEventWindows::drop_text_after_root() {
  if (part_ != Part::kDone || root_end_ == 0 || pending_size_ == root_end_) return;
  value_after_root_ = value_after_root_ ||
                      !std::all_of(pending_.data() + root_end_, pending_.data() + pending_size_,
                                   [](char c) { return is_space(c); });
  pending_size_ = scanned_ = root_end_;
}

bool ChromeEventWindows::window_is_full() const {
  // Text after the last whole event that is a window long already (a large event, or whitespace
  // that only a window without whole events cuts short) goes to the next window.
  return has_whole_event_ && (last_event_end_ - events_begin_ >= window_bytes_ ||
                              pending_size_ - last_event_end_ >= window_bytes_);
}

std::size_t ChromeEventWindows::skip_separator(std::size_t at) const {
  const auto skip_space = [&](std::size_t from) {
    while (from < pending_size_ && is_space(pending_[from]))
      ++from;
    return from;
  };
  at = skip_space(at);
  if (at < pending_size_ && pending_[at] == ',') at = skip_space(at + 1);
  return at;
}

void ChromeEventWindows::scan_pending() {
  scan(scanned_);
  scanned_ = pending_size_;
  squeeze_blank_tail();
  drop_text_after_root();
  check_held_text();
}

std::size_t ChromeEventWindows::probable_event_end(std::size_t from) const {
  const char* const text = pending_.data();
  const std::size_t size = pending_size_;
  const auto skip_space = [&](std::size_t at) {
    while (at < size && is_space(text[at]))
      ++at;
    return at;
  };
  for (std::size_t at = from; at < size;) {
    const void* const brace = std::memchr(text + at, '}', size - at);
    if (brace == nullptr) break;
    const auto close = static_cast<std::size_t>(static_cast<const char*>(brace) - text);
    std::size_t next = skip_space(close + 1);
    if (next < size && text[next] == ',') {
      next = skip_space(next + 1);
      if (next < size && text[next] == '{') return close + 1;
    }
    at = close + 1;
  }
  return 0;
}

bool ChromeEventWindows::cut_speculatively(std::size_t& end) {
  // A window's bytes hold a whole event's text most of the time; past this the guess is given up
  // for the exact scan (a trace of non-object elements, or of events larger than windows).
  // Windows that large (a caller's window_bytes near the size_t range) are cut by the scan.
  if (window_bytes_ > std::numeric_limits<std::size_t>::max() / 8) return false;
  const std::size_t give_up = events_begin_ + 4 * window_bytes_ + kReadChunk;
  std::size_t search_from = events_begin_ + window_bytes_;
  for (;;) {
    if (pending_size_ > search_from) {
      if (const std::size_t found = probable_event_end(search_from); found != 0) {
        end = found;
        return true;
      }
      // The pattern may straddle the end of what was read: search its last bytes again.
      search_from = std::max(search_from, pending_size_ - std::min<std::size_t>(pending_size_, 64));
    }
    if (pending_size_ > give_up || !read_more()) return false;
  }
}

void ChromeEventWindows::close_string(std::size_t quote) {
  in_string_ = false;
  if (depth_ == 1 && part_ == Part::kMembersBefore) {
    key_is_trace_events_ =
        std::string_view(pending_.data() + string_start_, quote - string_start_) == kTraceEventsKey;
  } else if (depth_ == events_depth_ && part_ == Part::kEvents) {
    last_event_end_ = quote + 1;
    has_whole_event_ = true;
  }
}

void ChromeEventWindows::scan(std::size_t from) {
  const char* const text = pending_.data();
  const std::size_t size = pending_size_;
  std::size_t at = from;
  // After a block with a backslash, its bytes are looked at one by one up to here.
  std::size_t bytewise_until = 0;
  while (at < size && part_ != Part::kDone) {
    if (part_ == Part::kEvents && depth_ > events_depth_ && !escaped_ && at >= bytewise_until &&
        at + kBlockBytes <= size) {
      const std::size_t next = scan_event_block(at);
      if (next != at) {
        at = next;
        continue;
      }
      bytewise_until = at + kBlockBytes;
    }
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
        ++at;
        continue;
      }
      at = find_first<QuoteOrBackslash>(text, at, size);
      if (at == size) break;
      if (text[at] == '\\') {
        escaped_ = true;
      } else {
        close_string(at);
      }
      ++at;
      continue;
    }
    if (part_ == Part::kEvents && depth_ > events_depth_) {
      at = find_first<QuoteOrBracket>(text, at, size);
      if (at == size) break;
    }
    const char c = text[at];
    const std::uint8_t kind = kCharClass[static_cast<unsigned char>(c)];
    if (part_ == Part::kBeforeRoot && kind != kSpace && kind != kOpen) {
      throw FormatError(source_.source_name(), pending_base_ + at,
                        "not valid JSON: a Chrome trace is a JSON array or object of events");
    }
    switch (kind) {
      case kSpace:
        at = find_first<NotBlank>(text, at, size);
        continue;
      case kQuote:
        in_string_ = true;
        string_start_ = at + 1;
        break;
      case kOpen:
        if (part_ == Part::kBeforeRoot) {
          object_form_ = c == '{';
          depth_ = 1;
          if (object_form_) {
            part_ = Part::kMembersBefore;
          } else {
            part_ = Part::kEvents;
            events_depth_ = 1;
            events_begin_ = at + 1;
            window_start_offset_ = pending_base_ + events_begin_;
          }
        } else if (part_ == Part::kMembersBefore && depth_ == 1 && c == '[' &&
                   value_is_trace_events_) {
          part_ = Part::kEvents;
          depth_ = 2;
          events_depth_ = 2;
          before_.assign(text, at + 1);
          events_begin_ = at + 1;
          window_start_offset_ = pending_base_ + events_begin_;
        } else {
          if (depth_ == 1) value_is_trace_events_ = false;
          ++depth_;
        }
        break;
      case kClose:
        --depth_;
        if (part_ == Part::kEvents && depth_ == events_depth_) {
          last_event_end_ = at + 1;
          has_whole_event_ = true;
        } else if (part_ == Part::kEvents && depth_ < events_depth_) {
          // The event text ends here; what follows belongs to the root object.
          events_end_ = at;
          events_end_offset_ = pending_base_ + at;
          after_begin_ = at + 1;
          part_ = object_form_ ? Part::kMembersAfter : Part::kDone;
          if (part_ == Part::kDone) root_end_ = at + 1;
        } else if (depth_ == 0) {
          if (part_ == Part::kMembersBefore) {
            throw FormatError(
                source_.source_name(), pending_base_ + at,
                "a JSON object without a \"traceEvents\" array is not a Chrome trace");
          }
          part_ = Part::kDone;
          root_end_ = at + 1;
        }
        break;
      case kComma:
        if (depth_ == 1 && part_ == Part::kMembersBefore) value_is_trace_events_ = false;
        break;
      case kColon:
        if (depth_ == 1 && part_ == Part::kMembersBefore) {
          value_is_trace_events_ = key_is_trace_events_;
          key_is_trace_events_ = false;
        }
        break;
      default:
        if (part_ == Part::kEvents && depth_ == events_depth_) {
          last_event_end_ = at + 1;  // a number or literal as an element
          has_whole_event_ = true;
        } else if (depth_ == 1 && part_ == Part::kMembersBefore) {
          value_is_trace_events_ = false;
        }
        break;
    }
    ++at;
  }
}

bool ChromeEventWindows::next(ChromeEventWindow& window) {
  if (windows_done_) return false;
  while (part_ == Part::kBeforeRoot || part_ == Part::kMembersBefore) {
    if (scanned_ < pending_size_) {
      scan_pending();
      continue;
    }
    if (!fill()) {
      throw FormatError(source_.source_name(), consumed_,
                        part_ == Part::kBeforeRoot
                            ? "not valid JSON: the file holds no JSON value"
                            : "not valid JSON: the file ends before its \"traceEvents\" array");
    }
  }
  std::size_t end = 0;
  bool speculative = part_ == Part::kEvents && !cut_exactly_ && cut_speculatively(end);
  if (!speculative) {
    scan_pending();
    while (part_ == Part::kEvents && !end_of_text_ && !window_is_full()) {
      fill();
    }
    // Before the first whole event the window is empty: it ends where the events begin.
    end = has_whole_event_ ? last_event_end_ : events_begin_;
  }
  cut_exactly_ = false;
  if (speculative) {
    // Taken as the end of an event, at the array's depth outside strings; the window's parse checks
    // that (put_back when it fails), and the scan state is the one there.
    depth_ = events_depth_;
    in_string_ = false;
    escaped_ = false;
    scanned_ = end;
  } else if (part_ != Part::kEvents) {
    end = events_end_;
    windows_done_ = true;
  } else if (end_of_text_) {
    finish_at_end_of_text();
    windows_done_ = true;
  }
  if (windows_done_) read_to_end();

  // Between windows only whitespace and the comma before the next event remain.
  const std::size_t begin = std::min(skip_separator(events_begin_), end);
  if (begin == end) return false;
  window.size = end - begin + 2;
  window.text.reserve(window.size + simdjson::SIMDJSON_PADDING);
  char* const text = window.text.data();
  text[0] = '[';
  std::memcpy(text + 1, pending_.data() + begin, end - begin);
  text[window.size - 1] = ']';
  std::memset(text + window.size, 0, simdjson::SIMDJSON_PADDING);
  window.offset = pending_base_ + begin;
  window.input_offset = source_.input_offset();
  window.speculative = speculative;
  handed_out_before_ = handed_out_events_;
  handed_out_events_ = true;
  if (!windows_done_) {
    // Keep only the text after the last whole event; the next window starts there.
    std::memmove(pending_.data(), pending_.data() + end, pending_size_ - end);
    pending_size_ -= end;
    pending_base_ += end;
    window_start_offset_ = pending_base_;
    scanned_ -= std::min(scanned_, end);
    events_begin_ = 0;
    last_event_end_ = 0;
    has_whole_event_ = false;
  }
  return true;
}

void ChromeEventWindows::put_back(const ChromeEventWindow& window) {
  // The window's text without its brackets goes back in front of what follows it.
  const std::string_view events(window.text.data() + 1, window.size - 2);
  pending_.reserve(pending_size_ + events.size());
  std::memmove(pending_.data() + events.size(), pending_.data(), pending_size_);
  std::memcpy(pending_.data(), events.data(), events.size());
  pending_size_ += events.size();
  pending_base_ -= events.size();
  window_start_offset_ = pending_base_;
  // Its start is the end of the window before, so the scan starts there between events.
  depth_ = events_depth_;
  in_string_ = false;
  escaped_ = false;
  scanned_ = 0;
  handed_out_events_ = handed_out_before_;
  cut_exactly_ = true;
}

void ChromeEventWindows::read_to_end() {
  // The members after the event array are small; reading on to the end also lets gzip check
  // its CRC and a trailing value be noticed.
  scan_pending();
  while (fill()) {
  }
  if (part_ == Part::kMembersAfter) {
    // The root object was cut off after its events: drop its unfinished end.
    lost_bytes_ = consumed_ - events_end_offset_;
    after_begin_ = after_end_ = 0;
  } else if (part_ == Part::kDone && root_end_ != 0) {
    after_end_ = root_end_ - 1;  // without the root's closing '}'
    if (value_after_root_) lost_bytes_ = consumed_ - (pending_base_ + root_end_);
  }
}

void ChromeEventWindows::finish_at_end_of_text() {
  // A bare array may lack its closing ']' (Chrome's format allows it); anything else cut off
  // inside the array keeps the events before the cut.
  const bool whole = !object_form_ && depth_ == events_depth_ && !in_string_;
  if (!has_whole_event_ && !whole && !handed_out_events_) {
    throw FormatError(source_.source_name(), consumed_,
                      "not valid JSON: the file ends inside its first event");
  }
  if (!whole) {
    lost_bytes_ =
        consumed_ - (has_whole_event_ ? pending_base_ + last_event_end_ : window_start_offset_);
  }
  part_ = Part::kDone;
}

std::string ChromeEventWindows::members_before() const {
  if (!object_form_) return {};
  return before_ + "]}";
}

std::string ChromeEventWindows::members_after() const {
  if (!object_form_) return {};
  std::string members = "{";
  members += kEmptyEvents;
  if (after_end_ > after_begin_)
    members.append(pending_.data() + after_begin_, after_end_ - after_begin_);
  members += '}';
  return members;
}

}  // namespace tscope::trace::chrome_json
