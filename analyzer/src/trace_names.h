#pragma once
// The trace layer's words that every analysis speaks in, named without their namespace in the
// analyzer's sources.

#include "tscope/trace/event_kinds.h"
#include "tscope/trace/event_ref.h"
#include "tscope/trace/records.h"
#include "tscope/trace/string_table.h"

namespace tscope::analyzer {

using trace::Category;
using trace::EventKind;
using trace::EventRef;
using trace::StringId;
using trace::TimeNs;
using trace::TrackKind;

}  // namespace tscope::analyzer
