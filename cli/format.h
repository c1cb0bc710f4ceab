// Output formats for the query commands: aligned tables, CSV and JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/human_cells.h"
#include "common/status.h"
#include "common/terminal_text.h"
#include "storage/reader.h"

namespace sweep {

enum class Format { kTable, kCsv, kJson };

Result<Format> ParseFormat(const std::string& name);
// A failure of several lines as one, for a table: its first line (without
// "; last lines of stderr:") and its last, which names the error
// ("the program exited with code 1: ValueError: alpha must be > 0").
std::string FailureLine(const std::string& failure);
// A parameter's value in a table's cell: a number as a number (lined up by
// its column), anything else as its text.
Cell ParamCell(const pb::Value& v);
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
}  // namespace sweep
