#include "tscope/profiler/nvtx_capture.h"

#include <nvtx3/nvToolsExt.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "capture_gate.h"
#include "nvtx_message_cache.h"
#include "recorder.h"
#include "tscope/profiler/environment.h"
#include "tscope/profiler/record.h"

namespace tscope::profiler {
namespace {

// Category names are looked up on every event, so they live in a lock-free table; ids beyond it
// are recorded as numbers.
constexpr std::uint32_t kNamedCategories = 256;

// What an nvtxDomainHandle_t points at. Domains and registered strings live until the process
// ends: NVTX hands their handles out for the rest of the run.
struct Domain {
  std::string name;
  std::array<std::atomic<const std::string*>, kNamedCategories> categories{};
};

struct RegisteredString {
  std::string text;
};

// Owns every domain, registered string and category name; locked only when one is created.
class NvtxRegistry {
 public:
  Domain* create_domain(std::string name) {
    const std::lock_guard lock(mutex_);
    domains_.push_back(std::make_unique<Domain>());
    domains_.back()->name = std::move(name);
    return domains_.back().get();
  }
  RegisteredString* register_string(std::string text) {
    const std::lock_guard lock(mutex_);
    strings_.push_back(std::make_unique<RegisteredString>(RegisteredString{std::move(text)}));
    return strings_.back().get();
  }
  void name_category(Domain& domain, std::uint32_t category, std::string name) {
    if (category >= kNamedCategories) return;
    const std::lock_guard lock(mutex_);
    category_names_.push_back(std::make_unique<std::string>(std::move(name)));
    domain.categories[category].store(category_names_.back().get(), std::memory_order_release);
  }
  Domain& default_domain() { return default_domain_; }

 private:
  std::mutex mutex_;
  Domain default_domain_;
  std::vector<std::unique_ptr<Domain>> domains_;
  std::vector<std::unique_ptr<RegisteredString>> strings_;
  std::vector<std::unique_ptr<std::string>> category_names_;
};

NvtxRegistry& registry() {
  // Never destroyed: NVTX calls may come from threads still running at exit.
  static NvtxRegistry* const instance = new NvtxRegistry();
  return *instance;
}

Domain& domain_of(nvtxDomainHandle_t handle) {
  return handle == nullptr ? registry().default_domain() : *reinterpret_cast<Domain*>(handle);
}

std::string to_utf8(const wchar_t* text) {
  std::string utf8;
  if (text == nullptr) return utf8;
  for (; *text != L'\0'; ++text) {
    const auto code = static_cast<std::uint32_t>(static_cast<std::make_unsigned_t<wchar_t>>(*text));
    if (code < 0x80) {
      utf8 += static_cast<char>(code);
    } else if (code < 0x800) {
      utf8 += static_cast<char>(0xC0 | (code >> 6));
      utf8 += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      utf8 += static_cast<char>(0xE0 | (code >> 12));
      utf8 += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      utf8 += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      utf8 += static_cast<char>(0xF0 | ((code >> 18) & 0x07));
      utf8 += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      utf8 += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      utf8 += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  return utf8;
}

// One NVTX event's name and arguments in the recording API's terms. Wide text is converted into
// a per-thread buffer, which keeps its capacity between events.
class EventDescription {
 public:
  EventDescription(nvtxDomainHandle_t handle, const nvtxEventAttributes_t* attributes) {
    Domain& domain = domain_of(handle);
    if (handle != nullptr) args_[count_++] = Arg("domain", std::string_view(domain.name));
    if (attributes == nullptr) return;
    switch (attributes->messageType) {
      case NVTX_MESSAGE_TYPE_ASCII:
        if (attributes->message.ascii != nullptr) name_ = attributes->message.ascii;
        break;
      case NVTX_MESSAGE_TYPE_UNICODE:
        name_ = wide_buffer() = to_utf8(attributes->message.unicode);
        break;
      case NVTX_MESSAGE_TYPE_REGISTERED:
        if (attributes->message.registered != nullptr) {
          name_ = reinterpret_cast<const RegisteredString*>(attributes->message.registered)->text;
          storage_ = NameStorage::kStatic;
        }
        break;
      default:
        break;
    }
    if (attributes->category != 0) {
      const std::string* category =
          attributes->category < kNamedCategories
              ? domain.categories[attributes->category].load(std::memory_order_acquire)
              : nullptr;
      args_[count_++] = category != nullptr ? Arg("category", std::string_view(*category))
                                            : Arg("category", attributes->category);
    }
    switch (attributes->payloadType) {
      case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
        args_[count_++] = Arg("payload", attributes->payload.ullValue);
        break;
      case NVTX_PAYLOAD_TYPE_INT64:
        args_[count_++] = Arg("payload", attributes->payload.llValue);
        break;
      case NVTX_PAYLOAD_TYPE_DOUBLE:
        args_[count_++] = Arg("payload", attributes->payload.dValue);
        break;
      case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
        args_[count_++] = Arg("payload", attributes->payload.uiValue);
        break;
      case NVTX_PAYLOAD_TYPE_INT32:
        args_[count_++] = Arg("payload", attributes->payload.iValue);
        break;
      case NVTX_PAYLOAD_TYPE_FLOAT:
        args_[count_++] = Arg("payload", attributes->payload.fValue);
        break;
      default:
        break;
    }
  }
  explicit EventDescription(std::string_view name) : name_(name) {}

  std::string_view name() const { return name_; }
  NameStorage storage() const { return storage_; }
  std::span<const Arg> args() const { return {args_.data(), count_}; }

 private:
  static std::string& wide_buffer() {
    thread_local std::string buffer;
    return buffer;
  }

  std::string_view name_;
  NameStorage storage_ = NameStorage::kCopy;
  std::array<Arg, 3> args_{Arg("", 0), Arg("", 0), Arg("", 0)};
  std::size_t count_ = 0;
};

std::atomic<std::uint64_t> next_range_id{1};

void mark(const EventDescription& event) {
  if (enabled()) {
    detail::record_instant(event.name(), event.storage(), trace::Category::kUserAnnotation,
                           event.args());
  }
}

nvtxRangeId_t range_start(const EventDescription& event) {
  const std::uint64_t id = next_range_id.fetch_add(1, std::memory_order_relaxed);
  if (enabled()) {
    internal::begin_async_range(id, event.name(), event.storage(), trace::Category::kUserAnnotation,
                                event.args());
  }
  return id;
}

void range_end(nvtxRangeId_t id) {
  if (enabled()) internal::end_async_range(id);
}

// A push while a --steps or --capture-range window watches the names of opening ranges.
[[gnu::noinline]] int push_watched(std::string_view name, NameStorage storage,
                                   trace::Category category, std::span<const Arg> args) {
  CaptureGate& gate = CaptureGate::instance();
  const bool ends_window = gate.before_open(name);
  const internal::Pushed pushed = internal::push_range(name, storage, category, args);
  if (ends_window) gate.after_open(pushed.level);
  return pushed.level;
}

int push(std::string_view name, NameStorage storage, trace::Category category,
         std::span<const Arg> args) {
  if (detail::gate_watches_opens.load(std::memory_order_relaxed)) [[unlikely]]
    return push_watched(name, storage, category, args);
  return internal::push_range(name, storage, category, args).level;
}

int range_push(const EventDescription& event) {
  return push(event.name(), event.storage(), push_category(event.name()), event.args());
}

int range_pop() {
  const int depth = internal::pop_range();
  if (detail::gate_watches_closes.load(std::memory_order_relaxed)) [[unlikely]]
    CaptureGate::instance().after_close(depth);
  return depth;
}

void mark_ex(const nvtxEventAttributes_t* attributes) {
  mark({nullptr, attributes});
}
void mark_a(const char* message) {
  mark(EventDescription(message == nullptr ? "" : message));
}
void mark_w(const wchar_t* message) {
  const std::string text = to_utf8(message);
  mark(EventDescription(text));
}
nvtxRangeId_t range_start_ex(const nvtxEventAttributes_t* attributes) {
  return range_start({nullptr, attributes});
}
nvtxRangeId_t range_start_a(const char* message) {
  return range_start(EventDescription(message == nullptr ? "" : message));
}
nvtxRangeId_t range_start_w(const wchar_t* message) {
  const std::string text = to_utf8(message);
  return range_start(EventDescription(text));
}
int range_push_ex(const nvtxEventAttributes_t* attributes) {
  return range_push({nullptr, attributes});
}
// The most common push: a message and nothing else, recorded without building an
// EventDescription (whose argument slots cost more to set up than the record itself), its text
// interned rather than copied into every record.
int range_push_a(const char* message) {
  // Without a session or a window watching names, a push records nothing and is at level 0.
  if (!enabled() && !detail::gate_watches_opens.load(std::memory_order_relaxed)) return 0;
  if (message == nullptr) return push("", NameStorage::kCopy, trace::Category::kUserAnnotation, {});
  const NvtxMessage cached = NvtxMessageCache::for_this_thread().find(message);
  return push(cached.text, cached.interned ? NameStorage::kStatic : NameStorage::kCopy,
              cached.category, {});
}
int range_push_w(const wchar_t* message) {
  const std::string text = to_utf8(message);
  return range_push(EventDescription(text));
}
void name_category_a(std::uint32_t category, const char* name) {
  registry().name_category(registry().default_domain(), category, name == nullptr ? "" : name);
}
void name_category_w(std::uint32_t category, const wchar_t* name) {
  registry().name_category(registry().default_domain(), category, to_utf8(name));
}
void name_os_thread_a(std::uint32_t thread_id, const char* name) {
  internal::name_thread(thread_id, name == nullptr ? "" : name);
}
void name_os_thread_w(std::uint32_t thread_id, const wchar_t* name) {
  internal::name_thread(thread_id, to_utf8(name));
}

void domain_mark_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  mark({domain, attributes});
}
nvtxRangeId_t domain_range_start_ex(nvtxDomainHandle_t domain,
                                    const nvtxEventAttributes_t* attributes) {
  return range_start({domain, attributes});
}
void domain_range_end(nvtxDomainHandle_t, nvtxRangeId_t id) {
  range_end(id);
}
int domain_range_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  return range_push({domain, attributes});
}
int domain_range_pop(nvtxDomainHandle_t) {
  return range_pop();
}
void domain_name_category_a(nvtxDomainHandle_t domain, std::uint32_t category, const char* name) {
  registry().name_category(domain_of(domain), category, name == nullptr ? "" : name);
}
void domain_name_category_w(nvtxDomainHandle_t domain, std::uint32_t category,
                            const wchar_t* name) {
  registry().name_category(domain_of(domain), category, to_utf8(name));
}
nvtxStringHandle_t domain_register_string_a(nvtxDomainHandle_t, const char* text) {
  return reinterpret_cast<nvtxStringHandle_t>(
      registry().register_string(text == nullptr ? "" : text));
}
nvtxStringHandle_t domain_register_string_w(nvtxDomainHandle_t, const wchar_t* text) {
  return reinterpret_cast<nvtxStringHandle_t>(registry().register_string(to_utf8(text)));
}
nvtxDomainHandle_t domain_create_a(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(
      registry().create_domain(name == nullptr ? "" : name));
}
nvtxDomainHandle_t domain_create_w(const wchar_t* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(registry().create_domain(to_utf8(name)));
}
// Domains stay valid after destruction: events already recorded point at their names.
void domain_destroy(nvtxDomainHandle_t) {}
void initialize(const void*) {}

template <typename Function>
void install(NvtxFunctionTable table, unsigned int size, unsigned int id, Function function) {
  if (id < size && table[id] != nullptr) {
    *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
  }
}

}  // namespace

int initialize_nvtx_injection(NvtxGetExportTable get_export_table) {
  try {
    start_environment_session();
  } catch (...) {  // NOLINT(bugprone-empty-catch): NVTX offers no way to report why
    // Without a session the callbacks simply record nothing.
  }
  if (get_export_table == nullptr) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;

  NvtxFunctionTable core = nullptr;
  unsigned int core_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) == 0) return 0;
  install(core, core_size, NVTX_CBID_CORE_MarkEx, &mark_ex);
  install(core, core_size, NVTX_CBID_CORE_MarkA, &mark_a);
  install(core, core_size, NVTX_CBID_CORE_MarkW, &mark_w);
  install(core, core_size, NVTX_CBID_CORE_RangeStartEx, &range_start_ex);
  install(core, core_size, NVTX_CBID_CORE_RangeStartA, &range_start_a);
  install(core, core_size, NVTX_CBID_CORE_RangeStartW, &range_start_w);
  install(core, core_size, NVTX_CBID_CORE_RangeEnd, &range_end);
  install(core, core_size, NVTX_CBID_CORE_RangePushEx, &range_push_ex);
  install(core, core_size, NVTX_CBID_CORE_RangePushA, &range_push_a);
  install(core, core_size, NVTX_CBID_CORE_RangePushW, &range_push_w);
  install(core, core_size, NVTX_CBID_CORE_RangePop, &range_pop);
  install(core, core_size, NVTX_CBID_CORE_NameCategoryA, &name_category_a);
  install(core, core_size, NVTX_CBID_CORE_NameCategoryW, &name_category_w);
  install(core, core_size, NVTX_CBID_CORE_NameOsThreadA, &name_os_thread_a);
  install(core, core_size, NVTX_CBID_CORE_NameOsThreadW, &name_os_thread_w);

  NvtxFunctionTable core2 = nullptr;
  unsigned int core2_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size) == 0) return 0;
  install(core2, core2_size, NVTX_CBID_CORE2_DomainMarkEx, &domain_mark_ex);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, &domain_range_start_ex);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, &domain_range_end);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, &domain_range_push_ex);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, &domain_range_pop);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainNameCategoryA, &domain_name_category_a);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainNameCategoryW, &domain_name_category_w);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, &domain_register_string_a);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringW, &domain_register_string_w);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, &domain_create_a);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateW, &domain_create_w);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainDestroy, &domain_destroy);
  install(core2, core2_size, NVTX_CBID_CORE2_Initialize, &initialize);
  return 1;
}

}  // namespace tscope::profiler
