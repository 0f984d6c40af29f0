#pragma once
// The critical-path section of each report format (text, Markdown, JSON, HTML), kept beside each
// other so that the four stay alike.

#include <string>

#include "tscope/analyzer/critical_path.h"
#include "tscope/report/json_writer.h"

namespace tscope::analyzer {

std::string critical_path_text(const CriticalPath& path);
std::string critical_path_markdown(const CriticalPath& path);
// An object: step_ns, parts (ns per mean step by part), on_path, off_path, graph size.
void write_critical_path_json(JsonWriter& json, const CriticalPath& path);
// For the HTML report: the path's parts per step as stacked bars (up to 40 steps, spread over the
// run), its caption, and the on- and off-path tables.
std::string critical_path_chart(const CriticalPath& path);
std::string critical_path_caption(const CriticalPath& path);
std::string critical_path_tables(const CriticalPath& path);

}  // namespace tscope::analyzer
