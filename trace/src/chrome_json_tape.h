#pragma once
// A parsed JSON text as one flat array of nodes, in document order, which the Chrome importer reads
// its events from: each value is a node, a container followed by its children (an object's as key
// and value nodes in turn). Strings and numbers keep their text (a string unescaped, a number as
// written, which exact times need), so the tape holds views of the text it was parsed from and of
// the tape's own buffer for unescaped strings; both must outlive the values read from it.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>

#include "mapped_buffer.h"

namespace tscope::trace::chrome_json {

enum class JsonType : std::uint8_t {
  kNull,
  kBool,
  kInt64,
  kUint64,
  kDouble,
  kString,
  kArray,
  kObject
};

// Never constructed where the tape sets it aside (the tape writes every field of a node it hands
// out), so that capacity costs no stores and pages become resident only as nodes are written.
struct JsonNode {
  // The number (its int64, uint64 or double bits), a bool; for a container the count of nodes it
  // spans, itself included, so its next sibling is that many nodes on.
  std::uint64_t payload;
  // A string's text, a number's token; empty otherwise (and for numbers simdjson's DOM gave, but
  // a window's "ts" and "dur", see ChromeEventTimeTokens).
  const char* text;
  std::uint32_t size;
  JsonType type;
};

// A view of one value of a tape; a null view stands for a missing value.
class JsonValue {
 public:
  JsonValue() = default;
  explicit JsonValue(const JsonNode* node) : node_(node) {}

  explicit operator bool() const { return node_ != nullptr; }
  JsonType type() const { return node_->type; }
  bool is(JsonType type) const { return node_ != nullptr && node_->type == type; }

  std::int64_t int64() const { return static_cast<std::int64_t>(node_->payload); }
  std::uint64_t uint64() const { return node_->payload; }
  double dbl() const {
    double value = 0;
    std::memcpy(&value, &node_->payload, sizeof value);
    return value;
  }
  bool boolean() const { return node_->payload != 0; }
  // A string's unescaped text or a number's token.
  std::string_view text() const { return {node_->text, node_->size}; }

  // The value after this one among its siblings.
  JsonValue next() const { return JsonValue(node_ + span()); }
  std::uint32_t span() const {
    return node_->type == JsonType::kArray || node_->type == JsonType::kObject
               ? static_cast<std::uint32_t>(node_->payload)
               : 1;
  }
  const JsonNode* node() const { return node_; }

 private:
  const JsonNode* node_ = nullptr;
};

// The elements of an array value, in order.
class JsonArray {
 public:
  explicit JsonArray(JsonValue array) : array_(array) {}
  class iterator {
   public:
    explicit iterator(JsonValue at) : at_(at) {}
    JsonValue operator*() const { return at_; }
    iterator& operator++() {
      at_ = at_.next();
      return *this;
    }
    bool operator!=(const iterator& other) const { return at_.node() != other.at_.node(); }

   private:
    JsonValue at_;
  };
  iterator begin() const { return iterator(JsonValue(array_.node() + 1)); }
  iterator end() const { return iterator(array_.next()); }

 private:
  JsonValue array_;
};

struct JsonField {
  std::string_view key;
  JsonValue value;
};

// The members of an object value, in order, repeated keys included.
class JsonObject {
 public:
  JsonObject() = default;
  explicit JsonObject(JsonValue object) : object_(object) {}
  explicit operator bool() const { return static_cast<bool>(object_); }

  class iterator {
   public:
    explicit iterator(const JsonNode* key) : key_(key) {}
    JsonField operator*() const { return {JsonValue(key_).text(), JsonValue(key_ + 1)}; }
    iterator& operator++() {
      key_ = JsonValue(key_ + 1).next().node();
      return *this;
    }
    bool operator!=(const iterator& other) const { return key_ != other.key_; }

   private:
    const JsonNode* key_;
  };
  // A null view has no members.
  iterator begin() const { return iterator(object_ ? object_.node() + 1 : nullptr); }
  iterator end() const { return iterator(object_ ? object_.next().node() : nullptr); }

  // The value of the first member named `key`; a null view when there is none.
  JsonValue find(std::string_view key) const {
    for (const JsonField field : *this) {
      if (field.key == key) return field.value;
    }
    return {};
  }

 private:
  JsonValue object_;
};

class JsonTape {
 public:
  // Forgets the values, keeping the memory; `text_bytes` bounds what unescaped strings need and
  // how many nodes the text can hold (a value and its separator take two bytes at least). Room
  // for those nodes, up to kEagerNodes, is set aside at once: a first window then never moves
  // its tape as it grows, and only the pages its nodes fill become resident.
  void clear(std::size_t text_bytes) {
    size_ = 0;
    nodes_.reserve(std::min(text_bytes / 2 + 2, kEagerNodes));
    kept_texts_.clear();
    // Pages become resident only where an escaped string is written.
    unescaped_.reserve(text_bytes);
    unescaped_size_ = 0;
  }
  JsonValue root() const { return size_ == 0 ? JsonValue() : JsonValue(nodes_.data()); }

  std::size_t append(JsonType type, std::uint64_t payload = 0, std::string_view text = {}) {
    // Every value of a window passes here: a bounds check and plain stores, no construction.
    if (size_ == nodes_.capacity()) nodes_.reserve(std::max(size_ + 1, kFirstNodes));
    JsonNode& node = nodes_[size_];
    node.payload = payload;
    node.text = text.data();
    node.size = static_cast<std::uint32_t>(text.size());
    node.type = type;
    return size_++;
  }
  // Closes a container opened at `index`: it spans every node appended since.
  void close(std::size_t index) { nodes_[index].payload = size_ - index; }
  void set_text(std::size_t index, std::string_view text) {
    nodes_[index].text = text.data();
    nodes_[index].size = static_cast<std::uint32_t>(text.size());
  }
  std::size_t size() const { return size_; }
  JsonValue at(std::size_t index) const { return JsonValue(&nodes_[index]); }

  // Room for an unescaped string of at most `bytes`, which clear() sized; commit what was used.
  char* unescape_space() { return unescaped_.data() + unescaped_size_; }
  std::string_view commit_unescaped(std::size_t bytes) {
    const std::string_view text(unescaped_.data() + unescaped_size_, bytes);
    unescaped_size_ += bytes;
    return text;
  }
  // A text the tape keeps as long as its values (a string of simdjson's that outlives nothing).
  std::string_view keep(std::string text) { return kept_texts_.emplace_back(std::move(text)); }

 private:
  static constexpr std::size_t kFirstNodes = 1024;
  // 24 MB of address space; a text with more nodes (a window of one huge event) grows the tape.
  static constexpr std::size_t kEagerNodes = std::size_t{1} << 20;

  // The first size_ are in use; the rest is capacity kept from earlier texts. Mapped, as the
  // reading thread grows them (mapped_buffer.h).
  MappedArray<JsonNode> nodes_;
  std::size_t size_ = 0;
  MappedArray<char> unescaped_;
  std::size_t unescaped_size_ = 0;
  // A deque, so earlier texts stay where they are as it grows.
  std::deque<std::string> kept_texts_;
};

}  // namespace tscope::trace::chrome_json
