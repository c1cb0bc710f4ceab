// Output formats for the query commands: aligned tables, CSV and JSON.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

enum class Format { kTable, kCsv, kJson };

Result<Format> ParseFormat(const std::string& name);
std::string FormatRows(const Table& table, Format format);
// {"id": 3, "status": "completed", "params": {...}, "value": 1.25, "step": 1, "attempts": 1, ...}
std::string TrialJson(const TrialView& t);
// Table and CSV put each parameter, and each final metric other than the
// objective, in a column of its own.
std::string FormatTrials(const std::vector<TrialView>& trials, Format format,
                         const std::string& objective);

}  // namespace sweep
