#pragma once
// JSON text pieces shared by the JSON reports of this layer.

#include <string>
#include <string_view>
#include <vector>

namespace tscope::regress {

std::string json_string(std::string_view text);
// JSON has no infinity or NaN; those become null.
std::string json_number(double value);
std::string json_string_array(const std::vector<std::string>& items);

}  // namespace tscope::regress
