// Fitting and applying a table's encoding.
#include "nn/data/table_data.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "common/json.h"
#include "common/nearest_word.h"

namespace sweep::nn {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A finite number, the whole cell (spaces around it aside).
bool Number(std::string_view cell, double* v) {
  cell = Trim(cell);
  if (cell.empty()) return false;
  if (cell.front() == '+') {
    cell.remove_prefix(1);
    if (cell.empty() || cell.front() == '-') return false;
  }
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), *v);
  // Finite as the float32 the network sees (1e300 is finite only as a double).
  return ec == std::errc() && end == cell.data() + cell.size() && std::isfinite(*v) &&
         std::isfinite(static_cast<float>(*v));
}

std::string Quote(std::string_view s) {
  std::string out(s.substr(0, 60));
  if (s.size() > 60) out += "...";
  return "'" + out + "'";
}

std::string BadCell(const CsvTable& t, size_t row, size_t col, const std::string& what) {
  std::string_view cell = t.rows[row][col];
  return t.Where(row, col) + ": " +
         (Trim(cell).empty() ? "an empty cell" : Quote(cell) + ", not a number,") + " in " + what;
}

// "; did you mean 'vote'? the columns are 'vote', 'age', ...": the header's
// names exactly as they are, quotes of their own included.
std::string ColumnList(const CsvTable& t, std::string_view wanted) {
  std::vector<std::string> quoted, plain;
  for (const auto& n : t.names) {
    quoted.push_back("'" + n + "'");
    plain.emplace_back(UnquotedHeader(n));
  }
  std::string near;
  if (auto w = NearestWord(wanted, plain))
    near = "; did you mean " +
           quoted[static_cast<size_t>(std::find(plain.begin(), plain.end(), *w) - plain.begin())] +
           "? the columns are ";
  return (near.empty() ? "; the columns are " : near) + JoinWords(quoted, 30);
}

// Standardisation statistics; a constant column keeps scale 1.
void MeanStddev(const std::vector<double>& v, double* mean, double* stddev) {
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  *mean = v.empty() ? 0 : sum / static_cast<double>(v.size());
  for (double x : v) sq += (x - *mean) * (x - *mean);
  double sd = v.empty() ? 0 : std::sqrt(sq / static_cast<double>(v.size()));
  *stddev = sd > 1e-12 ? sd : 1;
}

}  // namespace

int TableEncoding::features() const {
  int n = 0;
  for (const auto& c : columns)
    n += c.numeric ? 1 + (c.indicator ? 1 : 0) : static_cast<int>(c.categories.size());
  return n;
}

std::vector<std::string> TableEncoding::FeatureNames() const {
  std::vector<std::string> out;
  for (const auto& c : columns) {
    if (c.numeric) {
      out.push_back(c.name);
      if (c.indicator) out.push_back(c.name + "_missing");
    } else {
      for (const auto& v : c.categories) out.push_back(c.name + "=" + v);
    }
  }
  return out;
}

Result<TableEncoding> FitTable(const CsvTable& t, const TableOptions& o,
                               const CsvTable* classes_from) {
  TableEncoding e;
  if (t.rows.empty()) return Status::InvalidArgument(t.file + ": no rows to learn from");
  e.label = t.column(o.label);
  if (e.label < 0) {
    return Status::InvalidArgument(t.file + ": no column '" + o.label + "' to predict (label)" +
                                   ColumnList(t, o.label));
  }
  std::set<int> ignore;
  for (const auto& name : o.ignore) {
    const int col = t.column(name);
    if (col < 0)
      return Status::InvalidArgument(t.file + ": no column '" + name + "' to ignore" +
                                     ColumnList(t, name));
    if (col == e.label)
      return Status::InvalidArgument("the label '" + name + "' cannot also be ignored");
    ignore.insert(col);
  }
  const size_t rows = t.rows.size();
  for (size_t col = 0; col < t.names.size(); ++col) {
    if (static_cast<int>(col) == e.label || ignore.count(static_cast<int>(col))) continue;
    ColumnCode code;
    code.name = t.names[col];
    code.source = static_cast<int>(col);
    std::vector<double> numbers;
    size_t nonempty = 0, first_bad = rows;
    for (size_t r = 0; r < rows; ++r) {
      std::string_view cell = t.rows[r][col];
      double v;
      if (!Trim(cell).empty()) ++nonempty;
      if (Number(cell, &v)) {
        numbers.push_back(v);
      } else if (first_bad == rows) {
        first_bad = r;
      }
    }
    code.numeric = nonempty == 0 || 2 * numbers.size() > nonempty;
    if (code.numeric) {
      if (first_bad < rows && !o.impute_mean && !o.missing_nan) {
        return Status::InvalidArgument(
            BadCell(t, first_bad, col, "numeric column '" + code.name + "'") +
            " (missing: mean fills such cells with the training mean)");
      }
      code.indicator = first_bad < rows && !o.missing_nan;
      MeanStddev(numbers, &code.mean, &code.stddev);
    } else {
      std::set<std::string> values;
      for (size_t r = 0; r < rows; ++r) {
        values.emplace(Trim(t.rows[r][col]));
        if (values.size() > static_cast<size_t>(kMaxCategories)) {
          return Status::InvalidArgument(
              t.file + ": text column '" + code.name + "' has more than " +
              std::to_string(kMaxCategories) +
              " distinct values, too many to one-hot encode; ignore it (csv.ignore) or make it "
              "numeric");
        }
      }
      code.categories.assign(values.begin(), values.end());
    }
    e.columns.push_back(std::move(code));
  }
  if (e.columns.empty()) return Status::InvalidArgument(t.file + ": no feature columns");
  if (e.features() > 1000000) {
    return Status::InvalidArgument(t.file + ": encodes to " + std::to_string(e.features()) +
                                   " features, over the 1,000,000 sweep trains on");
  }
  const size_t lc = static_cast<size_t>(e.label);
  const std::string what = "the label column '" + o.label + "'";
  if (o.problem == Problem::kRegression) {
    std::vector<double> y;
    for (size_t r = 0; r < rows; ++r) {
      double v;
      if (!Number(t.rows[r][lc], &v))
        return Status::InvalidArgument(BadCell(t, r, lc, what) + " (regression predicts numbers)");
      y.push_back(v);
    }
    MeanStddev(y, &e.target_mean, &e.target_stddev);
    return e;
  }
  // Classes: numbers in numeric order where every label is one, else text.
  std::map<double, std::string> by_value;
  std::set<std::string> by_text;
  bool numeric = true;
  const CsvTable& labels = classes_from ? *classes_from : t;
  for (size_t r = 0; r < labels.rows.size(); ++r) {
    std::string_view cell = Trim(labels.rows[r][lc]);
    if (cell.empty())
      return Status::InvalidArgument(labels.Where(r, lc) + ": an empty cell in " + what);
    double v;
    if (numeric && Number(cell, &v)) {
      by_value.emplace(v, FormatDouble(v));
    } else {
      numeric = false;
    }
    by_text.emplace(cell);
  }
  if (numeric) {
    for (const auto& [v, name] : by_value) e.classes.push_back(name);
  } else {
    e.classes.assign(by_text.begin(), by_text.end());
  }
  if (e.classes.size() < 2) {
    return Status::InvalidArgument(t.file + ": " + what + " has one class only (" +
                                   Quote(e.classes[0]) + "): there is nothing to tell apart");
  }
  return e;
}

Status NameHeaderlessRows(const TableEncoding& e, const TableOptions& o, CsvTable* t) {
  // Every training column is the label, a feature or ignored.
  int width = e.label + 1;
  for (const auto& c : e.columns) width = std::max(width, c.source + 1);
  for (const auto& name : o.ignore) {
    int k = 0;
    auto [end, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), k);
    if (name.size() > 1 && name[0] == 'c' && ec == std::errc() && end == name.data() + name.size())
      width = std::max(width, k);
  }
  const int m = static_cast<int>(t->names.size());
  if (m == width) return Status::Ok();
  if (m != width - 1) {
    return Status::InvalidArgument(t->file + ": has " + std::to_string(m) +
                                   " columns; the training file has " + std::to_string(width) +
                                   " (" + std::to_string(width - 1) + " without the label)");
  }
  for (int j = 0; j < m; ++j) t->names[j] = "c" + std::to_string((j < e.label ? j : j + 1) + 1);
  return Status::Ok();
}

Result<Examples> EncodeTable(const CsvTable& t, const TableEncoding& e, const TableOptions& o) {
  // One lookup table, not a search of the header per column: a table may
  // have 100,000 columns.
  // A name matches as it is, or without quotes of its own ('age' in one
  // file, age in the other).
  std::unordered_map<std::string_view, int> by_name;
  for (size_t c = 0; c < t.names.size(); ++c) by_name.emplace(t.names[c], static_cast<int>(c));
  for (size_t c = 0; c < t.names.size(); ++c)
    by_name.emplace(UnquotedHeader(t.names[c]), static_cast<int>(c));
  std::vector<int> source;
  for (const auto& code : e.columns) {
    auto it = by_name.find(code.name);
    if (it == by_name.end()) it = by_name.find(UnquotedHeader(code.name));
    int col = it == by_name.end() ? -1 : it->second;
    if (col < 0) {
      return Status::InvalidArgument(t.file + ": no column '" + code.name +
                                     "', which the training file has");
    }
    source.push_back(col);
  }
  const int lc = o.labels ? t.column(o.label) : -1;
  if (o.labels && lc < 0)
    return Status::InvalidArgument(t.file + ": no column '" + o.label + "' (the label)");
  const bool numeric_classes =
      !e.classes.empty() && std::all_of(e.classes.begin(), e.classes.end(), [](const auto& c) {
        double v;
        return Number(c, &v);
      });
  std::map<std::string, int, std::less<>> class_index;
  std::map<double, int> value_index;
  for (size_t i = 0; i < e.classes.size(); ++i) {
    class_index[e.classes[i]] = static_cast<int>(i);
    double v;
    if (numeric_classes && Number(e.classes[i], &v)) value_index[v] = static_cast<int>(i);
  }
  Examples x;
  x.n = static_cast<int>(t.rows.size());
  x.c = e.features();
  x.values.reserve(static_cast<size_t>(x.n) * x.c);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    for (size_t k = 0; k < e.columns.size(); ++k) {
      const ColumnCode& code = e.columns[k];
      std::string_view cell = row[static_cast<size_t>(source[k])];
      if (!code.numeric) {
        for (const auto& v : code.categories) x.values.push_back(Trim(cell) == v ? 1.f : 0.f);
        continue;
      }
      double v;
      bool ok = Number(cell, &v);
      if (!ok && !o.impute_mean && !o.missing_nan) {
        return Status::InvalidArgument(
            BadCell(t, r, static_cast<size_t>(source[k]), "numeric column '" + code.name + "'") +
            " (missing: mean fills such cells with the training mean)");
      }
      // In float, as the exported model computes it (nn/export).
      x.values.push_back(ok ? (static_cast<float>(v) - static_cast<float>(code.mean)) /
                                  static_cast<float>(code.stddev)
                         : o.missing_nan ? NAN
                                         : 0.f);
      if (code.indicator) x.values.push_back(ok ? 0.f : 1.f);
    }
    if (lc < 0) continue;
    std::string_view label = Trim(row[static_cast<size_t>(lc)]);
    double v;
    if (o.problem == Problem::kRegression) {
      if (!Number(label, &v)) {
        return Status::InvalidArgument(
            BadCell(t, r, static_cast<size_t>(lc), "the label column '" + o.label + "'"));
      }
      x.targets.push_back(static_cast<float>((v - e.target_mean) / e.target_stddev));
      continue;
    }
    auto it = class_index.find(label);
    int index = it != class_index.end() ? it->second : -1;
    if (index < 0 && numeric_classes && Number(label, &v)) {
      auto vt = value_index.find(v);
      if (vt != value_index.end()) index = vt->second;
    }
    if (index < 0) {
      return Status::InvalidArgument(t.Where(r, static_cast<size_t>(lc)) + ": class " +
                                     Quote(label) + " does not occur in the training data");
    }
    x.labels.push_back(index);
  }
  return x;
}

}  // namespace sweep::nn
