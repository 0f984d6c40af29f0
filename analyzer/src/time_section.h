#pragma once
// The time breakdown as JSON, shared by the single-trace report's `time` section and each rank's
// `time` in the multi-rank report.

#include "tscope/analyzer/time_breakdown.h"
#include "tscope/report/json_writer.h"

namespace tscope::analyzer {

void write_time_json(JsonWriter& json, const TimeBreakdown& time);

}  // namespace tscope::analyzer
