// Reads one JSON object whose values sweep uses as scalars: the SWEEP_REPORT
// lines of command trials. NaN, Infinity and -Infinity are accepted, since
// Python's json.dumps writes them. Nested arrays and objects are parsed (and
// must be well formed) but only reported as kOther.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sweep {

struct JsonField {
  enum class Kind { kNumber, kBool, kNull, kString, kOther };
  std::string key;
  Kind kind = Kind::kNull;
  double number = 0;  // kNumber
  bool flag = false;  // kBool
  std::string text;   // kString
};

// The fields of `text`, in order; an error names what is wrong and where
// (as a byte offset). Nesting deeper than 64 levels is refused.
Result<std::vector<JsonField>> ParseJsonObject(std::string_view text);

}  // namespace sweep
