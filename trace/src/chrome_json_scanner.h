#pragma once
// Parses JSON text straight into a JsonTape, for the JSON that Chrome trace writers emit: strings
// without \u escapes, numbers that are int64, uint64 or a double in range, moderate nesting. For
// that text it is exact where simdjson's DOM is (the same values, types and acceptance) and
// several times cheaper, since it writes only the tape the importer reads. It declines (returns
// false) whatever it does not take, valid or not, and the caller then parses with simdjson, which
// also reports the errors.

#include <cstddef>

#include "chrome_json_tape.h"

namespace tscope::trace::chrome_json {

// `text` must be followed by simdjson's padding (SIMDJSON_PADDING readable bytes past `size`).
// On false the tape holds nothing of use.
bool scan_json(const char* text, std::size_t size, JsonTape& tape);

}  // namespace tscope::trace::chrome_json
