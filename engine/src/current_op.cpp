#include "tscope/engine/current_op.h"

namespace tscope::engine {
namespace {

thread_local std::string_view current_op;

}  // namespace

std::string_view current_op_name() {
  return current_op;
}

CurrentOpScope::CurrentOpScope(std::string_view op_name) : previous_(current_op) {
  current_op = op_name;
}

CurrentOpScope::~CurrentOpScope() {
  current_op = previous_;
}

}  // namespace tscope::engine
