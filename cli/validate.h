// `sweep validate STUDY [--print]`: a study file checked as `sweep run`
// would check it, and what it defines (or, with --print, the study as it
// will run, every default filled in, as protobuf text).
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

// The text to print, or the file's errors (every one, one per line).
Result<std::string> ValidateReport(const std::string& path, bool print);

}  // namespace sweep
