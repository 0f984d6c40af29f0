#pragma once
// The enumerations that classify what a track, span, copy, flow or memory event is; shared by the
// model, the file formats and every consumer that filters events by meaning.

#include <cstdint>
#include <string_view>

namespace tscope::trace {

enum class TrackKind : std::uint8_t { kHostThread, kGpuStream, kCounter, kMemoryPool };

// What a span means, independent of the tool that recorded it (Kineto, Nsight, our profiler).
enum class Category : std::uint8_t {
  kCpuOp,  // an engine or framework operator
  kUserAnnotation,
  kGpuUserAnnotation,
  kPythonFunction,
  kKernel,
  kMemcpy,
  kMemset,
  kRuntimeApi,
  kDriverApi,
  kSynchronization,
  kDataLoaderLoad,
  kDataWait,
  kOptimizer,
  kStep,
  kCommunication,
  kOther,
};
inline constexpr int kCategoryCount = static_cast<int>(Category::kOther) + 1;

enum class CopyDirection : std::uint8_t {
  kUnknown,
  kHostToDevice,
  kDeviceToHost,
  kDeviceToDevice,
  kHostToHost,
  kPeerToPeer,
};

enum class MemoryKind : std::uint8_t { kUnknown, kPageable, kPinned, kDevice, kManaged };

// Later kinds come last so that the values .tsc files already hold keep their meaning:
// kForwardBackward, a forward op to its backward op (Kineto's "fwdbwd"); kHandoff, work on one
// thread to the span of another thread that waited for it (a loaded batch to the wait for it, a
// collective on a communication thread to the wait for its result); kEnqueue, a span on one
// thread that queued work to the span of another thread that ran it (a collective queued to a
// communication thread). The last two let the step's dependency graph follow work across threads.
enum class FlowKind : std::uint8_t {
  kLaunchToKernel,
  kOpToKernel,
  kOther,
  kForwardBackward,
  kHandoff,
  kEnqueue
};

enum class MemoryAction : std::uint8_t { kAlloc, kFree };

enum class EventKind : std::uint8_t { kSpan, kInstant, kCounterSample, kMemory };

// Stable lower-case names used by `tscope info`, the file formats and reports.
std::string_view to_string(TrackKind kind);
std::string_view to_string(Category category);
std::string_view to_string(CopyDirection direction);
std::string_view to_string(MemoryKind kind);
std::string_view to_string(FlowKind kind);
std::string_view to_string(MemoryAction action);
std::string_view to_string(EventKind kind);

}  // namespace tscope::trace
