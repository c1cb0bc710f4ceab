// Output formats for the query commands: aligned tables, CSV and JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/human_cells.h"
#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

enum class Format { kTable, kCsv, kJson };

Result<Format> ParseFormat(const std::string& name);
// Text that came from a runner or a study file, made safe for a terminal:
// C0 control characters, DEL and UTF-8-encoded C1 controls become \xNN
// (ESC is \x1b), so no escape sequence reaches the terminal, and the
// bidirectional-text controls (common/bidi_controls.h) become \uNNNN, so
// nothing reorders what is shown. Everything else, other UTF-8 included, is
// unchanged; `keep_newlines` leaves '\n' (for
// CSV, which quotes it). Tables and CSV escape every cell and column name
// with it; JSON escapes the same characters its way.
std::string EscapeControl(std::string_view s, bool keep_newlines = false);
// A table shows numbers and times by cli/human_cells.h, `kinds` saying how
// each column is read (missing ones: kAuto); CSV and JSON keep every number
// in full.
std::string FormatRows(const Table& table, Format format,
                       const std::vector<ColumnKind>& kinds = {});
// CSV and JSON a row at a time, for output that is written as it is read
// (`sweep query`): the head, each row (`first` for the first), the end.
// FormatRows writes the same.
std::string StreamHead(const std::vector<std::string>& columns, Format format);
std::string StreamRow(const std::vector<std::string>& columns, const std::vector<Cell>& row,
                      Format format, bool first);
std::string StreamEnd(Format format);
// {"id": 3, "status": "completed", "params": {...}, "value": 1.25, "step": 1, "attempts": 1,
//  "number": 2, ..., "started_at": 1796190013.953, "ended_at": ...}: `number` is the trial's
// name in its study, `id` the database's key.
std::string TrialJson(const TrialView& t);
// Table and CSV put each parameter, and each final metric other than the
// objective, in a column of its own. `params`, the study's parameters in
// its file's order, come first, each with its column even when no row has
// it, so the columns do not depend on the rows shown.
std::string FormatTrials(const std::vector<TrialView>& trials, Format format,
                         const std::string& objective, const std::vector<std::string>& params = {});

}  // namespace sweep
