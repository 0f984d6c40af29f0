#pragma once
// Kineto's naming conventions in Chrome traces (categories, memcpy names, flow categories), shared
// by the Chrome JSON reader and writer so that what one writes the other reads back.

#include <optional>
#include <string_view>

#include "tscope/trace/event_details.h"
#include "tscope/trace/event_kinds.h"

namespace tscope::trace {

// Category of a span from its Chrome "cat" and name: Kineto's current categories (kernel,
// gpu_memcpy, cuda_runtime...), the 2021 schema (Kernel, Memcpy, Runtime, Operator...), our own
// category names, and ProfilerStep#N (Kineto) or "step N" (our engine) as training steps.
Category category_from_chrome(std::string_view cat, std::string_view name);

// The "cat" the writer uses: Kineto's name when Kineto has one, our category name otherwise.
std::string_view chrome_category(Category category);

// "Memcpy HtoD (Pageable -> Device)" -> direction and memory kinds; bytes stay 0.
CopyInfo copy_from_kineto_name(std::string_view name);

// Flow categories that tie a runtime launch to the GPU activity it started: Kineto's "ac2g",
// the older "async_cpu_to_gpu", and the 2021 schema's "async" (named "launch").
bool is_launch_flow_category(std::string_view cat);
inline constexpr std::string_view kLaunchFlowCategory = "ac2g";

// The name of Kineto's memory events (instants with Addr, Bytes, Total Allocated...).
inline constexpr std::string_view kKinetoMemoryEventName = "[memory]";

// Step number of a step span name ("ProfilerStep#12" or "step 12").
std::optional<long long> step_number(std::string_view name);

}  // namespace tscope::trace
