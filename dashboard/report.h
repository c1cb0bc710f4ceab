// `sweep report`: one study's dashboard as one self-contained HTML file. The
// page's scripts and styles are inlined and the API's answers for the study
// are embedded as data, so the file opens offline, with no server.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

// Trial pages the report carries: every trial's up to this many, else the
// best ones (the others' rows are in the table; their pages say so).
inline constexpr size_t kReportTrialPages = 2000;

// `study` by name, or empty for the only study of `db`. Writes `out` whole
// (a temporary file renamed over it) or not at all.
Status WriteReport(const std::string& db, const std::string& study, const std::string& out);

}  // namespace sweep
