#pragma once
// How a caching device allocator's segments appear in a trace: an instant when a segment is
// reserved from the device and one when it is given back, each with the arguments `address`,
// `bytes`, `device` and `stream`. The engine records them; the viewer's segment view reads them.
// The blocks cut from a segment are the memory events whose addresses fall inside it.

#include <string_view>

namespace tscope::trace {

inline constexpr std::string_view kSegmentAllocInstant = "allocator segment alloc";
inline constexpr std::string_view kSegmentFreeInstant = "allocator segment free";

}  // namespace tscope::trace
