// The CSV reader: one pass over the text, cells as views into it.
#include "nn/data/csv_file.h"

#include <set>

#include "nn/data/data_file.h"

namespace sweep::nn {

namespace {

constexpr size_t kMaxColumns = 100000;
constexpr size_t kMaxCell = 1 << 20;

// Splits *text into records of cells. Quoted cells are unescaped in place
// (the unescaped text is never longer), so every cell is a view.
class Splitter {
 public:
  Splitter(std::string* text, const std::string& file, char delimiter)
      : s_(*text), file_(file), delim_(delimiter) {
    if (s_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = line_start_ = 3;
  }
  // Reads the next non-blank record into `cells`; false at the end.
  Result<bool> Next(std::vector<std::string_view>* cells, int64_t* line) {
    cells->clear();
    SkipBlankLines();
    if (pos_ >= s_.size()) return false;
    *line = line_;
    while (true) {
      if (delim_ == ' ') SkipSpaces();
      ASSIGN_OR_RETURN(std::string_view cell, Cell());
      if (cells->size() >= kMaxColumns)
        return Status::InvalidArgument(Where() + ": more than 100000 columns");
      cells->push_back(cell);
      if (delim_ == ' ') {
        size_t before = pos_;
        SkipSpaces();
        if (pos_ == before && pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r') {
          return Status::InvalidArgument(Where() + ": unexpected '" + std::string(1, s_[pos_]) +
                                         "' after a quoted field");
        }
      }
      if (pos_ >= s_.size()) return true;
      char ch = s_[pos_];
      if (ch == '\n' || ch == '\r') {
        EndLine();
        return true;
      }
      if (delim_ != ' ') {
        if (ch != delim_) {
          return Status::InvalidArgument(Where() + ": unexpected '" + std::string(1, ch) +
                                         "' after a quoted field");
        }
        ++pos_;
      }
    }
  }
  // Drops `n` lines as they are (quotes and all), as skip_rows says.
  void SkipLines(int n) {
    for (int i = 0; i < n && pos_ < s_.size(); ++i) {
      while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
      if (pos_ < s_.size()) EndLine();
    }
  }
  std::string Where() const {
    return file_ + ":" + std::to_string(line_) + ":" + std::to_string(pos_ - line_start_ + 1);
  }

 private:
  bool Separator(char ch) const { return delim_ == ' ' ? (ch == ' ' || ch == '\t') : ch == delim_; }
  void SkipSpaces() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  void EndLine() {
    if (s_[pos_] == '\r' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }
  void SkipBlankLines() {
    while (pos_ < s_.size()) {
      size_t p = pos_;
      while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t')) ++p;
      if (p < s_.size() && (s_[p] == '\n' || s_[p] == '\r')) {
        pos_ = p;
        EndLine();
      } else if (p >= s_.size()) {
        pos_ = p;
      } else {
        return;
      }
    }
  }
  Result<std::string_view> Cell() {
    const size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '"') {
      const size_t open_line = line_;
      ++pos_;
      size_t out = start;  // the unescaped text is written from here
      while (true) {
        if (pos_ >= s_.size()) {
          return Status::InvalidArgument(file_ + ":" + std::to_string(open_line) +
                                         ": a quoted field is never closed");
        }
        char ch = s_[pos_++];
        if (ch == '"') {
          if (pos_ < s_.size() && s_[pos_] == '"') {
            ++pos_;
          } else {
            break;
          }
        } else if (ch == '\n') {
          ++line_;
          line_start_ = pos_;
        }
        s_[out++] = ch;
        if (out - start > kMaxCell) return Status::InvalidArgument(Where() + ": a cell over 1 MiB");
      }
      return std::string_view(s_.data() + start, out - start);
    }
    while (pos_ < s_.size() && !Separator(s_[pos_]) && s_[pos_] != '\n' && s_[pos_] != '\r') {
      if (s_[pos_] == '"') {
        return Status::InvalidArgument(Where() +
                                       ": a quote inside an unquoted field (quote the whole "
                                       "field and double the quote: \"a \"\"b\"\"\")");
      }
      ++pos_;
    }
    if (pos_ - start > kMaxCell) return Status::InvalidArgument(Where() + ": a cell over 1 MiB");
    return std::string_view(s_.data() + start, pos_ - start);
  }

  std::string& s_;
  const std::string& file_;
  char delim_;
  size_t pos_ = 0, line_start_ = 0;
  int64_t line_ = 1;
};

}  // namespace

std::string_view UnquotedHeader(std::string_view cell) {
  if (cell.size() >= 2 && (cell.front() == '\'' || cell.front() == '"') &&
      cell.back() == cell.front())
    return cell.substr(1, cell.size() - 2);
  return cell;
}

int CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  // The name as a person writes it matches a header cell with quotes of its own.
  for (size_t i = 0; i < names.size(); ++i)
    if (UnquotedHeader(names[i]) == name) return static_cast<int>(i);
  return -1;
}

CsvTable CsvTable::Rows(const std::vector<int32_t>& idx, size_t begin, size_t end) const {
  CsvTable t;
  t.file = file;
  t.names = names;
  t.text = text;
  t.label_file = label_file;
  for (size_t i = begin; i < end; ++i) {
    t.rows.push_back(rows[static_cast<size_t>(idx[i])]);
    t.lines.push_back(lines[static_cast<size_t>(idx[i])]);
    if (!label_lines.empty()) t.label_lines.push_back(label_lines[static_cast<size_t>(idx[i])]);
  }
  return t;
}

std::string CsvTable::Where(size_t row, size_t column) const {
  if (!label_file.empty() && column + 1 == names.size())
    return label_file + ":" + std::to_string(label_lines[row]) + ":1";
  return file + ":" + std::to_string(lines[row]) + ":" + std::to_string(column + 1);
}

Result<CsvTable> ParseCsv(std::string text, const std::string& file, const CsvOptions& options) {
  CsvTable t;
  t.file = file;
  t.text = std::make_shared<std::string>(std::move(text));
  Splitter split(t.text.get(), file, options.delimiter);
  std::vector<std::string_view> cells;
  int64_t line = 0;
  split.SkipLines(options.skip_rows);
  ASSIGN_OR_RETURN(bool any, split.Next(&cells, &line));
  if (!any) {
    return Status::InvalidArgument(file + ": is empty (expected " +
                                   (options.header ? "a header row, then " : "") +
                                   "one row per example)");
  }
  if (options.header) {
    std::set<std::string_view> seen;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string_view name = cells[c];
      std::string at = file + ":" + std::to_string(line) + ":" + std::to_string(c + 1);
      if (name.empty()) return Status::InvalidArgument(at + ": the header has an empty name");
      if (!seen.insert(name).second) {
        return Status::InvalidArgument(at + ": the header names '" + std::string(name) + "' twice");
      }
      t.names.emplace_back(name);
    }
    ASSIGN_OR_RETURN(any, split.Next(&cells, &line));
  } else {
    for (size_t c = 0; c < cells.size(); ++c) t.names.push_back("c" + std::to_string(c + 1));
  }
  while (any) {
    if (cells.size() != t.names.size()) {
      return Status::InvalidArgument(file + ":" + std::to_string(line) + ": has " +
                                     std::to_string(cells.size()) + " fields, " +
                                     (options.header ? "the header " : "the first row ") + "has " +
                                     std::to_string(t.names.size()));
    }
    t.rows.push_back(cells);
    t.lines.push_back(line);
    ASSIGN_OR_RETURN(any, split.Next(&cells, &line));
  }
  if (t.rows.empty()) return Status::InvalidArgument(file + ": has a header but no rows");
  return t;
}

Result<CsvTable> ReadCsv(const std::string& path, const CsvOptions& options) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadDataFile(path, uint64_t{1} << 30));
  return ParseCsv(std::string(bytes.begin(), bytes.end()), path, options);
}

}  // namespace sweep::nn
