#pragma once
// Loads one of the real traces of ../shared/data/traces in a test, in whatever format it is:
// the test skips when it is absent, or fails where TSCOPE_REQUIRE_TEST_INPUTS=1.

#include "test_data.h"
#include "tscope/trace/trace_io.h"

// Declares `variable`, the trace at ../shared/data/traces/<relative> (a string literal), and
// `variable_path`, its path.
#define TSCOPE_LOAD_SHARED_TRACE(variable, relative)                                  \
  const auto variable##_path = tscope::testing::shared_data_path("traces/" relative); \
  TSCOPE_REQUIRE_FILE(variable##_path);                                               \
  const tscope::trace::Trace variable = tscope::trace::load_trace(variable##_path)
