#pragma once
// The arg keys of a Chrome span that the model keeps as structured fields (Kineto's kernel,
// memcpy and op args, and ours), told apart from every other key on the import's hottest path.

#include <cstdint>
#include <string_view>

namespace tscope::trace::chrome_json {

// kOther stays an arg.
enum class SpanArgKey : std::uint8_t {
  kOther,
  kCorrelation,
  kExternalId,
  kGrid,
  kBlock,
  kRegistersPerThread,
  kSharedMemory,
  kStaticSharedMemory,
  kDynamicSharedMemory,
  kDevice,
  kStream,
  kBytes,
  kCopyKind,
  kSourceMemory,
  kDestinationMemory,
  kInputDims,
  kFlops,
  kBytesRead,
  kBytesWritten,
  kTensorsRead,
  kTensorsWritten,
};

SpanArgKey span_arg_key(std::string_view key);

}  // namespace tscope::trace::chrome_json
