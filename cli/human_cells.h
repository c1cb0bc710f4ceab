// How tables show numbers and times to people, one rule everywhere: every
// number in 6 significant digits (common/number_text.h); within a
// column one notation (fixed, or scientific when a value is too small or
// large for it) with the decimal points lined up; a Unix time as a local
// date and time; a duration in seconds, minutes or hours. CSV and JSON
// keep full numbers instead (cli/format.h).
#pragma once

#include <string>
#include <vector>

#include "storage/reader.h"

namespace sweep {

enum class ColumnKind {
  kAuto,      // numbers as numbers; `at` and `*_at` columns of Unix times as times
  kTime,      // Unix seconds, as a local "YYYY-MM-DD HH:MM:SS"
  kClock,     // the same, only "HH:MM:SS" when on the date of the row's kTime cell
  kDuration,  // seconds, as "0.25s", "12.3s", "4m05s", "2h03m"
};

// The text of every cell of column `c` of `t` for a table (empty for text
// cells, which the caller writes), numbers lined up on their points. A
// kAuto `*kind` becomes kTime when the column holds times.
std::vector<std::string> HumanColumn(const Table& t, size_t c, ColumnKind* kind);

// `seconds` since the epoch as a local "YYYY-MM-DD HH:MM:SS".
std::string LocalTime(double seconds);
std::string HumanDuration(double seconds);

}  // namespace sweep
