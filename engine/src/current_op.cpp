#include "current_op.h"

namespace tscope::engine {
namespace {

thread_local std::string_view current_op;
thread_local std::string_view outermost_op;

}  // namespace

std::string_view current_op_name() {
  return current_op;
}

std::string_view outermost_op_name() {
  return outermost_op;
}

CurrentOpScope::CurrentOpScope(std::string_view op_name)
    : previous_(current_op), outermost_(outermost_op.empty()) {
  current_op = op_name;
  if (outermost_) outermost_op = op_name;
}

CurrentOpScope::~CurrentOpScope() {
  current_op = previous_;
  if (outermost_) outermost_op = {};
}

}  // namespace tscope::engine
