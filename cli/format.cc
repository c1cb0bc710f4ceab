// Table, CSV and JSON rendering.
#include "cli/format.h"

#include <cstdio>

#include "common/json.h"
#include "common/text_width.h"
#include "common/values.h"

namespace sweep {

Result<Format> ParseFormat(const std::string& name) {
  if (name == "table") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  return Status::InvalidArgument("unknown format '" + name + "' (expected table, csv or json)");
}

std::string EscapeControl(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  auto hex = [&](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
    if (c == '\n' && keep_newlines) {
      out.push_back('\n');
    } else if (c < 0x20 || c == 0x7f) {
      hex(c);
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F
      hex(c);
      hex(next);
      ++i;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

namespace {

std::string CellText(const Cell& c, Format f) {
  if (std::holds_alternative<std::monostate>(c)) return f == Format::kJson ? "null" : "";
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) {
    if (f == Format::kJson) return JsonNumber(*d);
    if (f == Format::kTable) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", *d);
      return buf;
    }
    return FormatDouble(*d);
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

std::string FormatRows(const Table& t, Format f) {
  std::string out;
  if (f == Format::kJson) {
    out = "[";
    for (size_t r = 0; r < t.rows.size(); ++r) {
      out += r ? ",\n {" : "{";
      for (size_t c = 0; c < t.columns.size(); ++c) {
        out += (c ? ", " : "") + JsonString(t.columns[c]) + ": " + CellText(t.rows[r][c], f);
      }
      out += "}";
    }
    return out + "]\n";
  }
  if (f == Format::kCsv) {
    for (size_t c = 0; c < t.columns.size(); ++c)
      out += (c ? "," : "") + CellText(Cell(t.columns[c]), f);
    out += "\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + CellText(row[c], f);
      out += "\n";
    }
    return out;
  }
  std::vector<size_t> width(t.columns.size());
  std::vector<std::vector<std::string>> text;
  std::vector<std::string> columns;
  for (const auto& name : t.columns) columns.push_back(EscapeControl(name));
  // Widths in terminal columns (common/text_width.h), not bytes: `naïve`
  // and `学习率` line up.
  for (size_t c = 0; c < columns.size(); ++c) width[c] = DisplayWidth(columns[c]);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string s = CellText(row[c], f);
      if (DisplayWidth(s) > 60) s = CutToWidth(s, 57) + "...";
      width[c] = std::max(width[c], DisplayWidth(s));
      cells.push_back(std::move(s));
    }
    text.push_back(std::move(cells));
  }
  auto line = [&](const std::vector<std::string>& cells, const std::vector<Cell>* row) {
    std::string l;
    for (size_t c = 0; c < cells.size(); ++c) {
      bool right = row && !std::holds_alternative<std::string>((*row)[c]);
      std::string pad(width[c] - DisplayWidth(cells[c]), ' ');
      l +=
          (c ? "  " : "") + (right ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : ""));
    }
    return l + "\n";
  };
  out += line(columns, nullptr);
  for (size_t r = 0; r < text.size(); ++r) out += line(text[r], &t.rows[r]);
  if (t.rows.empty()) out += "(no rows)\n";
  return out;
}

std::string TrialJson(const TrialView& t) {
  std::string out =
      "{\"id\": " + std::to_string(t.id) + ", \"status\": " + JsonString(t.status) +
      ", \"params\": " + ParamsToJson(t.params.params()) +
      ", \"value\": " + (t.value ? JsonNumber(*t.value) : "null") +
      ", \"step\": " + (t.step ? std::to_string(*t.step) : "null") +
      ", \"attempts\": " + std::to_string(t.attempts) +
      ", \"number\": " + std::to_string(t.number) +
      ", \"failure\": " + (t.failure.empty() ? "null" : JsonString(t.failure)) +
      ", \"metrics\": " + (t.metrics_json.empty() ? "null" : t.metrics_json) +
      ", \"parent\": " + (t.parent ? std::to_string(*t.parent) : "null") +
      ", \"parent_step\": " + (t.parent_step ? std::to_string(*t.parent_step) : "null") + "}";
  return out;
}

std::string FormatTrials(const std::vector<TrialView>& trials, Format f,
                         const std::string& objective, const std::vector<std::string>& params) {
  if (f == Format::kJson) {
    std::string out = "[";
    for (size_t i = 0; i < trials.size(); ++i) out += (i ? ",\n " : "") + TrialJson(trials[i]);
    return out + "]\n";
  }
  Table t;
  // For people the objective's column bears its name; CSV keeps `value`,
  // the stable name scripts read (as JSON does).
  t.columns = {"id", "status", f == Format::kTable && !objective.empty() ? objective : "value",
               "step", "attempts"};
  bool lineage = std::any_of(trials.begin(), trials.end(), [](const auto& x) { return x.parent; });
  if (lineage) t.columns.push_back("parent");
  // The study's parameters in its file's order, whichever rows are shown
  // (a conditional one no row has still has its column); then any other.
  std::vector<std::string> names = params;
  for (const auto& tr : trials) {
    for (const auto& p : tr.params.params()) {
      if (std::find(names.begin(), names.end(), p.name()) == names.end()) names.push_back(p.name());
    }
  }
  for (const auto& n : names) t.columns.push_back(n);
  std::vector<std::string> metrics;
  for (const auto& tr : trials) {
    for (const auto& [m, v] : tr.metrics) {
      if (m != objective && std::find(metrics.begin(), metrics.end(), m) == metrics.end())
        metrics.push_back(m);
    }
  }
  for (const auto& m : metrics) t.columns.push_back(m);
  t.columns.push_back("failure");
  for (const auto& tr : trials) {
    std::vector<Cell> row = {tr.id, tr.status, tr.value ? Cell(*tr.value) : Cell(),
                             tr.step ? Cell(*tr.step) : Cell(), int64_t{tr.attempts}};
    if (lineage) row.push_back(tr.parent ? Cell(*tr.parent) : Cell());
    for (const auto& n : names) {
      Cell c;
      for (const auto& p : tr.params.params()) {
        if (p.name() != n) continue;
        const pb::Value& v = p.value();
        if (v.kind_case() == pb::Value::kNumber)
          c = v.number();
        else if (v.kind_case() == pb::Value::kInteger)
          c = static_cast<int64_t>(v.integer());
        else
          c = ValueToString(v);
      }
      row.push_back(c);
    }
    for (const auto& m : metrics) {
      Cell c;
      for (const auto& [name, v] : tr.metrics) {
        if (name == m && v) c = *v;
      }
      row.push_back(c);
    }
    row.push_back(tr.failure.empty() ? Cell() : Cell(tr.failure));
    t.rows.push_back(std::move(row));
  }
  return FormatRows(t, f);
}

}  // namespace sweep
