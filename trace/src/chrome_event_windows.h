#pragma once
// Cuts the text of a Chrome trace into windows of whole events for a bounded-memory import: a
// structural scan (strings, escapes, nesting) finds the event array, in the array form or under
// the object form's "traceEvents", and the boundaries between its elements. Each window is a
// JSON array of complete events, padded for simdjson; the text around the event array (the
// object form's other members) is kept apart for the top-level reader. Buffers are reused, so
// memory stays at about one window whatever the file's size.
//
// What the text must hold at once is bounded whatever the input: a run of whitespace outside
// strings (between events, before the root value, among the members around the event array) is
// cut down to one byte as soon as it is scanned, a window is handed out early when the text after
// its last whole event is a window long already, and an event or the members around the event
// array that run past max_event_bytes without their end are refused.
//
// Inside the event array most windows are cut without the scan: at the first '}' past the
// window's size that the text follows with ',' and '{', as one event's end and the next one's
// start look. A string can hold those bytes too, or the array end before them; then the window is
// not valid JSON (it ends inside a string or an event, or holds the array's end), which its parse
// finds, and put_back() has it cut again by the scan.

#include <cstdint>
#include <string>
#include <string_view>

#include "chrome_byte_source.h"
#include "mapped_buffer.h"

namespace tscope::trace::chrome_json {

struct ChromeEventWindow {
  // "[" + whole events + "]" followed by simdjson's padding of zero bytes, `size` bytes without
  // the padding. Mapped, as the reading thread fills it (mapped_buffer.h).
  MappedArray<char> text;
  std::size_t size = 0;
  // Offset in the (decompressed) text of the window's first event, for error messages.
  std::uint64_t offset = 0;
  // Bytes of the file (compressed, for gzip) read when the window was cut, for progress.
  std::uint64_t input_offset = 0;
  // Cut where the text looks like the end of an event, not where the scan found one: valid only
  // if the window parses (see put_back).
  bool speculative = false;
};

class ChromeEventWindows {
 public:
  ChromeEventWindows(ChromeByteSource& source, std::size_t window_bytes,
                     std::size_t max_event_bytes);

  // Fills `window` with the next events; false once the event array is exhausted. Throws
  // FormatError when the text has no event array, or an event (or the members around the event
  // array) runs past max_event_bytes without its end.
  bool next(ChromeEventWindow& window);
  // Takes back the last window, a speculative one that did not parse: the next call to next()
  // cuts that text again with the scan.
  void put_back(const ChromeEventWindow& window);

  // The object form's members around the event array as one JSON object with an empty
  // "traceEvents" (complete once next() returned false): `{...,"traceEvents":[]}` before it,
  // `{"traceEvents":[]...}` after it. Empty for the array form.
  std::string members_before() const;
  std::string members_after() const;
  bool is_object_form() const { return object_form_; }
  // Text bytes after the last whole event of a file cut off inside the array (or after its
  // root value ends), which the import drops.
  std::uint64_t lost_bytes() const { return lost_bytes_; }
  std::uint64_t text_bytes() const { return consumed_; }
  const ChromeByteSource& source() const { return source_; }

 private:
  enum class Part : std::uint8_t { kBeforeRoot, kMembersBefore, kEvents, kMembersAfter, kDone };

  // Reads a chunk into pending_; false at the end of the text.
  bool read_more();
  // Reads a chunk and scans what was not scanned yet.
  bool fill();
  // Scans what was not scanned yet, then drops what no window needs and refuses what is too long
  // to hold.
  void scan_pending();
  // Cuts a run of whitespace at the end of the scanned text, where no string or event is open,
  // down to one byte; the text after it keeps its exact offsets.
  void squeeze_blank_tail();
  // Throws FormatError when more than max_event_bytes of the event being read, or of the members
  // around the event array, are held without their end.
  void check_held_text() const;
  // Drops the text after the root value's end, noting whether it holds more than whitespace.
  void drop_text_after_root();
  // Whether the window being cut has enough whole events, or enough text after its last one.
  bool window_is_full() const;
  // From `at`, past whitespace and the one comma between two events.
  std::size_t skip_separator(std::size_t at) const;
  void scan(std::size_t from);
  // The offset after the first '}' from `from` that ',' and '{' follow, 0 when there is none.
  std::size_t probable_event_end(std::size_t from) const;
  // Reads until an event seems to end past the window's size; false when none does in reach.
  bool cut_speculatively(std::size_t& end);
  // Scans the 64 bytes at `at` inside an event; returns where the scan goes on (after the block,
  // or after an event that ends in it), or `at` itself when the block needs the byte-wise scan.
  std::size_t scan_event_block(std::size_t at);
  void close_string(std::size_t quote);
  void finish_at_end_of_text();
  void read_to_end();

  ChromeByteSource& source_;
  std::size_t window_bytes_;
  std::size_t max_event_bytes_;

  // Text read but not yet handed out, the first pending_size_ bytes of pending_; pending_[i] is
  // the text's byte pending_base_ + i, exactly so after the last run of whitespace cut short (the
  // offsets that errors name all lie there). Mapped, as the reading thread fills it.
  MappedArray<char> pending_;
  std::size_t pending_size_ = 0;
  std::uint64_t pending_base_ = 0;
  std::uint64_t consumed_ = 0;
  // pending_ is scanned up to here; a speculative cut skips the scan of what it hands out.
  std::size_t scanned_ = 0;
  bool end_of_text_ = false;
  bool windows_done_ = false;
  bool handed_out_events_ = false;
  bool handed_out_before_ = false;  // before the last window, for put_back
  bool cut_exactly_ = false;

  Part part_ = Part::kBeforeRoot;
  bool object_form_ = false;
  bool in_string_ = false;
  bool escaped_ = false;
  int depth_ = 0;
  int events_depth_ = 0;
  // At the root object's level: whether the last string was the key "traceEvents", and whether
  // the value that follows its ':' is due.
  std::size_t string_start_ = 0;
  bool key_is_trace_events_ = false;
  bool value_is_trace_events_ = false;

  // In pending_: where the event text starts, where its last whole event ends, where the array
  // closes, and the root object's members after it (up to its closing brace).
  std::size_t events_begin_ = 0;
  std::size_t last_event_end_ = 0;
  bool has_whole_event_ = false;
  std::size_t events_end_ = 0;
  std::size_t after_begin_ = 0;
  std::size_t after_end_ = 0;
  std::size_t root_end_ = 0;

  // Text offsets where they must stay exact past whitespace cut short later: of pending_[0] when
  // the window being cut started, and of the event array's end.
  std::uint64_t window_start_offset_ = 0;
  std::uint64_t events_end_offset_ = 0;

  std::string before_;
  std::uint64_t lost_bytes_ = 0;
  // Whether the text after the root value's end held more than whitespace.
  bool value_after_root_ = false;
};

}  // namespace tscope::trace::chrome_json
