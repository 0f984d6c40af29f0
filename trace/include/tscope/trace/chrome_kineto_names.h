#pragma once
// Kineto's naming conventions in Chrome traces (categories, memcpy names, flow categories), shared
// by the Chrome JSON reader and writer so that what one writes the other reads back.

#include <string>
#include <string_view>

#include "tscope/trace/event_details.h"
#include "tscope/trace/event_kinds.h"

namespace tscope::trace {

// Category of a span from its Chrome "cat" and name: Kineto's current categories (kernel,
// gpu_memcpy, cuda_runtime...), the 2021 schema (Kernel, Memcpy, Runtime, Operator...) and our
// own category names. Kineto records training steps as ProfilerStep#N annotations or operators;
// those become steps. Events without "cat" (PyTorch's legacy autograd profiler) are classified by
// name: ProfilerStep#N steps, aten::*, autograd and Optimizer.* ops, anything else kOther.
Category category_from_chrome(std::string_view cat, std::string_view name);

// The "cat" the writer uses: Kineto's name when Kineto has one, our category name otherwise.
std::string_view chrome_category(Category category);

// "Memcpy HtoD (Pageable -> Device)" -> direction and memory kinds; bytes stay 0.
CopyInfo copy_from_kineto_name(std::string_view name);
// The inverse, for importers of other formats that name copies the way Kineto does.
std::string kineto_copy_name(const CopyInfo& copy);
// "Memset (Device)".
std::string kineto_memset_name(MemoryKind kind);

// Flow kind of a flow category: Kineto's "ac2g", the older "async_cpu_to_gpu" and the 2021
// schema's "async" tie a runtime launch to the GPU activity it started; "fwdbwd" ties a forward
// op to its backward op; our writer names the other kinds after FlowKind.
FlowKind flow_kind_from_chrome(std::string_view cat);
std::string_view chrome_flow_category(FlowKind kind);

// The name of Kineto's memory events (instants with Addr, Bytes, Total Allocated...).
inline constexpr std::string_view kKinetoMemoryEventName = "[memory]";
// Args our writer adds to memory events for what Kineto does not record.
inline constexpr std::string_view kMemoryPoolArg = "Pool";
inline constexpr std::string_view kMemoryOpArg = "Op";
inline constexpr std::string_view kMemoryScopeArg = "Scope";
// Category of the allocator-total counters the writer derives from memory events for viewers;
// the reader skips them because the memory events themselves carry the same totals.
inline constexpr std::string_view kMemoryCounterCategory = "tscope.memory_totals";

// Chrome fields the model has no column for, kept as args by the reader and written back as the
// fields by the writer: the "cat" of an event whose Category is kOther ("Trace", "overhead",
// "cuda_profiler_range"), and an instant's scope when it is not the thread ("g", "p").
inline constexpr std::string_view kChromeCategoryArg = "chrome.cat";
inline constexpr std::string_view kChromeScopeArg = "chrome.scope";
// The member that holds an event's args when the writer keeps them out of "args"
// (ChromeDetailPlacement::kSeparate); the reader takes it as the args.
inline constexpr std::string_view kChromeSeparateArgsMember = "tscopeArgs";
// The writer puts spans of a track that overlap without nesting on extra rows named
// "<track><suffix>" in the same process; the reader takes them back to the track.
inline constexpr std::string_view kChromeOverlapRowSuffix = " (overlapping)";

}  // namespace tscope::trace
