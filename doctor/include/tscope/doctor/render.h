#pragma once
// The two faces of a doctor report: text for a person at a terminal, JSON (schema in
// docs/doctor.md) for scripts.

#include <string>

#include "tscope/doctor/report.h"

namespace tscope::doctor {

std::string render_text(const Report& report);
std::string render_json(const Report& report);

}  // namespace tscope::doctor
