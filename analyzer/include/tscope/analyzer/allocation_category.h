#pragma once
// Which kind of memory an allocation is (parameters, gradients, optimizer state, activations,
// input batches, temporaries), judged from its owner op and scope names.

#include <array>
#include <cstdint>
#include <string_view>

namespace tscope::analyzer {

enum class AllocationCategory : std::uint8_t {
  kParameters,
  kGradients,
  kOptimizerState,
  kActivations,
  kInputBatches,
  kTemporaries,
  kUnattributed,  // no owner or scope recorded (Kineto's [memory] events)
};
inline constexpr std::size_t kAllocationCategoryCount = 7;

AllocationCategory allocation_category(std::string_view owner_op, std::string_view scope);
std::string_view to_string(AllocationCategory category);

}  // namespace tscope::analyzer
