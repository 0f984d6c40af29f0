#include "nvtx_message_cache.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "tscope/profiler/step_names.h"
#include "wire_format.h"

namespace tscope::profiler {
namespace {

// A string_view hash that std::string keys share, so lookups by view build no string.
struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

// Every message interned by any thread. Node-based, so an element's text never moves; never
// destroyed, as records may point at it until the process ends.
class InternedMessages {
 public:
  // The interned copy of `text`, or null once kMaxInternedBytes are taken.
  const std::string* intern(std::string_view text) {
    const std::lock_guard lock(mutex_);
    if (const auto found = texts_.find(text); found != texts_.end()) return &*found;
    if (bytes_ + text.size() > NvtxMessageCache::kMaxInternedBytes) return nullptr;
    bytes_ += text.size();
    return &*texts_.emplace(text).first;
  }

 private:
  std::mutex mutex_;
  std::unordered_set<std::string, TextHash, std::equal_to<>> texts_;
  std::size_t bytes_ = 0;
};

InternedMessages& interned_messages() {
  static InternedMessages* const instance = new InternedMessages();
  return *instance;
}

// Owns the calling thread's cache and forgets it as the thread exits.
struct CacheOwner {
  std::unique_ptr<NvtxMessageCache> cache;
  ~CacheOwner() { t_nvtx_message_cache = nullptr; }
};
thread_local CacheOwner t_cache_owner;

}  // namespace

trace::Category push_category(std::string_view name) {
  // The last character rules out most names before step_number parses anything.
  const bool may_be_step = !name.empty() && name.back() >= '0' && name.back() <= '9';
  return may_be_step && step_number(name) ? trace::Category::kStep
                                          : trace::Category::kUserAnnotation;
}

thread_local constinit NvtxMessageCache* t_nvtx_message_cache = nullptr;

NvtxMessageCache* NvtxMessageCache::create_for_this_thread() {
  t_cache_owner.cache = std::make_unique<NvtxMessageCache>();
  t_nvtx_message_cache = t_cache_owner.cache.get();
  return t_nvtx_message_cache;
}

NvtxMessage NvtxMessageCache::refill(const char* message) {
  const std::string_view text(message);
  const trace::Category category = push_category(text);
  // Text longer than a record copies is cut there; interning it whole would give its later
  // pushes another name than the first.
  if (text.size() > wire::kMaxCopiedText) return {text, false, category};
  // Text is interned the second time it shows at one address, so a buffer rewritten for every
  // push (a counter in the name) stays on the copying path instead of filling the table.
  Slot& slot = slots_[slot_index(message)];
  const std::size_t text_hash = TextHash{}(text);
  if (slot.pending_address != message || slot.pending_hash != text_hash) {
    slot.pending_address = message;
    slot.pending_hash = text_hash;
    return {text, false, category};
  }
  const std::string* interned = interned_messages().intern(text);
  if (interned == nullptr) return {text, false, category};
  slot.address = message;
  slot.interned = interned->c_str();
  slot.length = interned->size();
  slot.category = category;
  return {*interned, true, category};
}

}  // namespace tscope::profiler
