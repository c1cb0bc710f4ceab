// CSV text into cells: RFC 4180 (quoted fields, "" inside quotes, CRLF or
// LF, newlines inside quotes), a UTF-8 byte-order mark dropped, blank lines
// skipped. Every row remembers its line, so messages can name
// file:line:column. Caps: 100,000 columns, 1 MiB per cell.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sweep::nn {

struct CsvOptions {
  char delimiter = ',';  // ' ': runs of spaces and tabs separate fields
  bool header = true;    // false: the columns are named c1, c2, ...
  int skip_rows = 0;  // lines dropped as they are (quotes and all) before the header or first row
};

struct CsvTable {
  std::string file;  // for messages
  std::vector<std::string> names;
  // rows[r][c]: views into *text, where quoted cells are unescaped in place
  // (on the heap, so the views survive moving the table, and tables made
  // of some of its rows share it).
  std::vector<std::vector<std::string_view>> rows;
  std::vector<int64_t> lines;  // each row's first line in the file, 1-based
  std::shared_ptr<std::string> text;
  // A label column joined from a file of its own (the last column): its
  // name and each row's line there, so that messages point into it.
  std::string label_file;
  std::vector<int64_t> label_lines;

  // The same columns with rows[idx[begin..end)].
  CsvTable Rows(const std::vector<int32_t>& idx, size_t begin, size_t end) const;

  // -1 where there is none. A header cell in quotes of its own ('vote', as
  // statsmodels' anes96.csv has) matches its name without them too.
  int column(std::string_view name) const;
  // "file:line:column" of a cell (column 0-based here, 1-based in the text),
  // in the labels file for a joined label column.
  std::string Where(size_t row, size_t column) const;
};

// A header cell in quotes of its own inside the CSV quoting ('vote' in
// statsmodels' anes96.csv, or """vote""") without them; else as it is.
std::string_view UnquotedHeader(std::string_view cell);

// `text` is the file's bytes; `file` names it in messages.
Result<CsvTable> ParseCsv(std::string text, const std::string& file, const CsvOptions& options);
Result<CsvTable> ReadCsv(const std::string& path, const CsvOptions& options);

}  // namespace sweep::nn
