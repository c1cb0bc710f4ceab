// `sweep studies`: the studies of a database, with the tuner that runs one.
#pragma once

#include <string>

#include "cli/format.h"
#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

// The studies table of `db`, where a study is `running` only while a tuner
// holds the database (its pid in the `tuner` column); one whose tuner is
// gone (kill -9, a crash) shows as `interrupted`, and the table format
// ends with the command that resumes it.
Result<std::string> FormatStudies(Reader& reader, const std::string& db, Format format);
// The names alone, one per line, control characters escaped (what the shell
// completions offer; cli/shell_help.cc).
Result<std::string> StudyNames(Reader& reader);

}  // namespace sweep
