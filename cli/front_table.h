// A study's Pareto front as `sweep best` shows it (studies with several
// objectives or with constraints): a table for people, CSV and a JSON list
// for programs.
#pragma once

#include <string>
#include <vector>

#include "cli/format.h"
#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

// The front's trials with their objectives, constraint values and
// parameters (`params`: the study's parameters in its file's order); the
// table starts with a line saying what the front is and, with constraints,
// whether any trial is feasible.
Result<std::string> FormatFront(Reader& r, const StudyRef& study, const StudyFront& front,
                                Format format, const std::vector<std::string>& params);

}  // namespace sweep
