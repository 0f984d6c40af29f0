#include "tscope/analyzer/allocation_category.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tscope::analyzer {
namespace {

bool mentions(const std::string& text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view word) { return text.find(word) != std::string::npos; });
}

}  // namespace

AllocationCategory allocation_category(std::string_view owner_op, std::string_view scope) {
  if (owner_op.empty() && scope.empty()) return AllocationCategory::kUnattributed;
  std::string text(scope);
  text += ' ';
  text += owner_op;
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Most specific first: an optimizer's state lives under "optimizer", gradients under
  // "backward", and whatever the forward pass leaves alive is saved for backward.
  if (mentions(text, {"param", "init", "weight"})) return AllocationCategory::kParameters;
  if (mentions(text, {"optim", "adam", "sgd", "exp_avg", "momentum"}))
    return AllocationCategory::kOptimizerState;
  if (mentions(text, {"grad", "backward"})) return AllocationCategory::kGradients;
  if (mentions(text, {"loader", "batch", "input", "decode", "collate"}))
    return AllocationCategory::kInputBatches;
  if (mentions(text, {"forward", "activation", "saved"})) return AllocationCategory::kActivations;
  return AllocationCategory::kTemporaries;
}

std::string_view to_string(AllocationCategory category) {
  static constexpr std::array kNames{"parameters",  "gradients",     "optimizer_state",
                                     "activations", "input_batches", "temporaries",
                                     "unattributed"};
  return kNames[static_cast<std::size_t>(category)];
}

}  // namespace tscope::analyzer
