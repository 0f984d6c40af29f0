#include "tscope/trace/event_kinds.h"

namespace tscope::trace {

std::string_view to_string(TrackKind kind) {
  switch (kind) {
    case TrackKind::kHostThread:
      return "host_thread";
    case TrackKind::kGpuStream:
      return "gpu_stream";
    case TrackKind::kCounter:
      return "counter";
    case TrackKind::kMemoryPool:
      return "memory_pool";
  }
  return "unknown";
}

std::string_view to_string(Category category) {
  switch (category) {
    case Category::kCpuOp:
      return "cpu_op";
    case Category::kUserAnnotation:
      return "user_annotation";
    case Category::kGpuUserAnnotation:
      return "gpu_user_annotation";
    case Category::kPythonFunction:
      return "python_function";
    case Category::kKernel:
      return "kernel";
    case Category::kMemcpy:
      return "memcpy";
    case Category::kMemset:
      return "memset";
    case Category::kRuntimeApi:
      return "runtime_api";
    case Category::kDriverApi:
      return "driver_api";
    case Category::kSynchronization:
      return "synchronization";
    case Category::kDataLoaderLoad:
      return "data_loader_load";
    case Category::kDataWait:
      return "data_wait";
    case Category::kOptimizer:
      return "optimizer";
    case Category::kStep:
      return "step";
    case Category::kCommunication:
      return "communication";
    case Category::kOther:
      return "other";
  }
  return "unknown";
}

std::string_view to_string(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kUnknown:
      return "unknown";
    case CopyDirection::kHostToDevice:
      return "HtoD";
    case CopyDirection::kDeviceToHost:
      return "DtoH";
    case CopyDirection::kDeviceToDevice:
      return "DtoD";
    case CopyDirection::kHostToHost:
      return "HtoH";
    case CopyDirection::kPeerToPeer:
      return "PtoP";
  }
  return "unknown";
}

std::string_view to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kUnknown:
      return "unknown";
    case MemoryKind::kPageable:
      return "pageable";
    case MemoryKind::kPinned:
      return "pinned";
    case MemoryKind::kDevice:
      return "device";
    case MemoryKind::kManaged:
      return "managed";
  }
  return "unknown";
}

std::string_view to_string(FlowKind kind) {
  switch (kind) {
    case FlowKind::kLaunchToKernel:
      return "launch_to_kernel";
    case FlowKind::kOpToKernel:
      return "op_to_kernel";
    case FlowKind::kOther:
      return "other";
    case FlowKind::kForwardBackward:
      return "forward_backward";
    case FlowKind::kHandoff:
      return "handoff";
    case FlowKind::kEnqueue:
      return "enqueue";
  }
  return "unknown";
}

std::string_view to_string(MemoryAction action) {
  switch (action) {
    case MemoryAction::kAlloc:
      return "alloc";
    case MemoryAction::kFree:
      return "free";
  }
  return "unknown";
}

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kSpan:
      return "span";
    case EventKind::kInstant:
      return "instant";
    case EventKind::kCounterSample:
      return "counter_sample";
    case EventKind::kMemory:
      return "memory";
  }
  return "unknown";
}

}  // namespace tscope::trace
