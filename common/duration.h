// Durations written by people: "90s", "30m", "2h", "1h30m", "1.5d".
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace sweep {

// Seconds in `text`: one or more numbers, each with its unit (s, m, h, d),
// added up; at least one second, at most a year. A bare number is refused
// (seconds or minutes?): the error says how to write one.
Result<double> ParseDuration(std::string_view text);

// The shortest of those spellings for `seconds` ("2h", "1h30m", "45s").
std::string DurationText(double seconds);

}  // namespace sweep
