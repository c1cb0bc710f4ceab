// Table, CSV and JSON rendering.
#include "cli/format.h"

#include <cstdio>

#include "cli/human_cells.h"
#include "common/json.h"
#include "common/text_width.h"
#include "common/values.h"

namespace sweep {

Cell ParamCell(const pb::Value& v) {
  if (v.kind_case() == pb::Value::kNumber) return v.number();
  if (v.kind_case() == pb::Value::kInteger) return static_cast<int64_t>(v.integer());
  return ValueToString(v);
}

std::string FailureLine(const std::string& failure) {
  size_t nl = failure.find('\n');
  if (nl == std::string::npos) return failure;
  std::string head = failure.substr(0, nl);
  // "...; last lines of stderr:": what follows is the program's own words.
  size_t tail_mark = head.rfind("; last lines of ");
  if (tail_mark != std::string::npos) head.resize(tail_mark);
  std::string last;
  size_t end = failure.size();
  while (end > nl) {
    size_t start = failure.rfind('\n', end - 1);
    std::string line = failure.substr(start + 1, end - start - 1);
    size_t a = line.find_first_not_of(" \t\r");
    if (a != std::string::npos) {
      last = line.substr(a);
      break;
    }
    end = start;
  }
  return last.empty() ? head : head + ": " + last;
}

Result<Format> ParseFormat(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  return Status::InvalidArgument("unknown format '" + name + "' (expected table, csv or json)");
}

namespace {

std::string CellText(const Cell& c, Format f) {
  if (std::holds_alternative<std::monostate>(c)) return f == Format::kJson ? "null" : "";
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) {
    return f == Format::kJson ? JsonNumber(*d) : FormatDouble(*d);
  }
  if (f == Format::kJson) return JsonString(std::get<std::string>(c));
  // CSV keeps a newline, quoted as RFC 4180 has it; a table row stays one
  // line. A carriage return, which can hide text, is escaped in both.
  std::string s = EscapeControl(std::get<std::string>(c), f == Format::kCsv);
  if (f == Format::kCsv && s.find_first_of(",\"\n") != std::string::npos) {
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }
  return s;
}

}  // namespace

std::string StreamHead(const std::vector<std::string>& columns, Format f) {
  if (f == Format::kJson) return "[";
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + CellText(Cell(columns[c]), f);
  return out + "\n";
}

std::string StreamRow(const std::vector<std::string>& columns, const std::vector<Cell>& row,
                      Format f, bool first) {
  std::string out;
  if (f == Format::kJson) {
    out = first ? "{" : ",\n {";
    for (size_t c = 0; c < columns.size(); ++c)
      out += (c ? ", " : "") + JsonString(columns[c]) + ": " + CellText(row[c], f);
    return out + "}";
  }
  for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + CellText(row[c], f);
  return out + "\n";
}

std::string StreamEnd(Format f) { return f == Format::kJson ? "]\n" : ""; }

std::string FormatRows(const Table& t, Format f, const std::vector<ColumnKind>& kinds) {
  std::string out;
  if (f != Format::kTable) {
    out = StreamHead(t.columns, f);
    for (size_t r = 0; r < t.rows.size(); ++r) out += StreamRow(t.columns, t.rows[r], f, r == 0);
    return out + StreamEnd(f);
  }
  std::vector<size_t> width(t.columns.size());
  std::vector<std::vector<std::string>> text;
  std::vector<std::string> columns;
  for (const auto& name : t.columns) columns.push_back(EscapeControl(name));
  // Widths in terminal columns (common/text_width.h), not bytes: `naïve`
  // and `学习率` line up.
  for (size_t c = 0; c < columns.size(); ++c) width[c] = DisplayWidth(columns[c]);
  // Numbers and times by the rule for people (cli/human_cells.h), a column
  // at a time; text as it is.
  std::vector<std::vector<std::string>> human;
  std::vector<bool> time(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    ColumnKind kind = c < kinds.size() ? kinds[c] : ColumnKind::kAuto;
    human.push_back(HumanColumn(t, c, &kind));
    time[c] = kind == ColumnKind::kTime;
  }
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    std::vector<std::string> cells;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string s =
          std::holds_alternative<std::string>(row[c]) ? CellText(row[c], f) : human[c][r];
      if (DisplayWidth(s) > 60) s = CutToWidth(s, 57) + "...";
      width[c] = std::max(width[c], DisplayWidth(s));
      cells.push_back(std::move(s));
    }
    text.push_back(std::move(cells));
  }
  auto line = [&](const std::vector<std::string>& cells, const std::vector<Cell>* row) {
    std::string l;
    for (size_t c = 0; c < cells.size(); ++c) {
      // Numbers right, text and times left.
      ColumnKind kind = c < kinds.size() ? kinds[c] : ColumnKind::kAuto;
      bool right = row && !std::holds_alternative<std::string>((*row)[c]) &&
                   kind != ColumnKind::kTime && kind != ColumnKind::kClock && !time[c];
      std::string pad(width[c] - DisplayWidth(cells[c]), ' ');
      l +=
          (c ? "  " : "") + (right ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : ""));
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  out += line(columns, nullptr);
  for (size_t r = 0; r < text.size(); ++r) out += line(text[r], &t.rows[r]);
  if (t.rows.empty()) out += "(no rows)\n";
  return out;
}

}  // namespace sweep
