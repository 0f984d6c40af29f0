#pragma once
// The fused ops that replace chains the fusion analysis finds, so that a finding can name the
// op to use rather than only say "fuse these". Matched on the engine's op names.

#include <span>
#include <string>
#include <string_view>

namespace tscope::analyzer {

// The fused op that does the work of a dataflow chain of ops named `names` (in order);
// `fed_by_matmul` says whether the chain's first op reads a matrix product's output. Empty where
// no fused op is known.
std::string fused_alternative(std::span<const std::string_view> names, bool fed_by_matmul);

}  // namespace tscope::analyzer
