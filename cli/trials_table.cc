// The trials table: every column built, then the ones shown chosen.
#include "cli/trials_table.h"

#include <algorithm>

#include "common/json.h"
#include "common/nearest_word.h"
#include "common/text_width.h"
#include "common/values.h"

namespace sweep {

std::string TrialJson(const TrialView& t) {
  std::string out =
      "{\"id\": " + std::to_string(t.id) +
      ", \"status\": " + JsonString(TrialStatusName(t.status)) +
      ", \"params\": " + ParamsToJson(t.params.params()) +
      ", \"value\": " + (t.value ? JsonNumber(*t.value) : "null") +
      ", \"step\": " + (t.step ? std::to_string(*t.step) : "null") +
      ", \"attempts\": " + std::to_string(t.attempts) +
      ", \"number\": " + std::to_string(t.number) +
      ", \"failure\": " + (t.failure.empty() ? "null" : JsonString(t.failure)) +
      ", \"metrics\": " + (t.metrics_json.empty() ? "null" : t.metrics_json) +
      ", \"parent\": " + (t.parent ? std::to_string(*t.parent) : "null") +
      ", \"parent_number\": " + (t.parent_number ? std::to_string(*t.parent_number) : "null") +
      ", \"parent_step\": " + (t.parent_step ? std::to_string(*t.parent_step) : "null") +
      ", \"started_at\": " + (t.started_at ? JsonNumber(*t.started_at) : "null") +
      ", \"ended_at\": " + (t.ended_at ? JsonNumber(*t.ended_at) : "null") + "}";
  return out;
}

namespace {

// What a column is, for the default table's choice.
enum class Role { kCore, kAttempts, kParam, kMetric, kTime, kDuration, kFailure, kId };

struct FullTable {
  Table t;
  std::vector<ColumnKind> kinds;
  std::vector<Role> roles;
};

FullTable BuildTable(const std::vector<TrialView>& trials, Format f, const std::string& objective,
                     const std::vector<std::string>& params, const TrialColumns& columns) {
  FullTable full;
  Table& t = full.t;
  auto column = [&](const std::string& name, Role role, ColumnKind kind = ColumnKind::kAuto) {
    t.columns.push_back(name);
    full.kinds.push_back(kind);
    full.roles.push_back(role);
  };
  // A trial is named by its number in its study (`sweep why 7`). For
  // people the objective's column bears its name; CSV keeps `value`, the
  // stable name scripts read (as JSON does).
  const bool table = f == Format::kTable;
  for (const char* c : {"trial", "status"}) column(c, Role::kCore);
  if (columns.mark_pareto) column("pareto", Role::kCore);
  column(table && !objective.empty() ? objective : "value", Role::kCore);
  column("step", Role::kCore);
  column("attempts", Role::kAttempts);
  const bool lineage =
      std::any_of(trials.begin(), trials.end(), [](const auto& x) { return x.parent; });
  // The parent by its number: `parent_number` in CSV, where JSON's
  // `parent` is its id.
  if (lineage) column(table ? "parent" : "parent_number", Role::kCore);
  // The study's parameters in its file's order, whichever rows are shown
  // (a conditional one no row has still has its column); then any other.
  std::vector<std::string> names = params;
  for (const auto& tr : trials) {
    for (const auto& p : tr.params.params()) {
      if (std::find(names.begin(), names.end(), p.name()) == names.end()) names.push_back(p.name());
    }
  }
  for (const auto& n : names) column(n, Role::kParam);
  std::vector<std::string> metrics;
  for (const auto& tr : trials) {
    for (const auto& [m, v] : tr.metrics) {
      if (m != objective && std::find(metrics.begin(), metrics.end(), m) == metrics.end())
        metrics.push_back(m);
    }
  }
  for (const auto& m : metrics) column(m, Role::kMetric);
  // When it ran: local times for people, Unix seconds in CSV.
  column(table ? "start" : "started_at", Role::kTime, ColumnKind::kTime);
  column(table ? "end" : "ended_at", Role::kTime, ColumnKind::kClock);
  column(table ? "duration" : "duration_s", Role::kDuration, ColumnKind::kDuration);
  column("failure", Role::kFailure);
  if (!table) column("id", Role::kId);  // the database's key, to join with `sweep query`
  auto opt = [](const auto& v) { return v ? Cell(*v) : Cell(); };
  for (const auto& tr : trials) {
    std::vector<Cell> row = {tr.number, std::string(TrialStatusName(tr.status))};
    if (columns.mark_pareto) {
      const bool in = columns.pareto.count(tr.id) > 0;
      row.push_back(table ? Cell(std::string(in ? "*" : "")) : Cell(int64_t{in}));
    }
    for (Cell c : {opt(tr.value), opt(tr.step), Cell(int64_t{tr.attempts})}) row.push_back(c);
    if (lineage) row.push_back(opt(tr.parent_number));
    for (const auto& n : names) {
      Cell c;
      for (const auto& p : tr.params.params())
        if (p.name() == n) c = ParamCell(p.value());
      row.push_back(c);
    }
    for (const auto& m : metrics) {
      Cell c;
      for (const auto& [name, v] : tr.metrics) {
        if (name == m && v) c = *v;
      }
      row.push_back(c);
    }
    row.push_back(opt(tr.started_at));
    row.push_back(opt(tr.ended_at));
    row.push_back(tr.started_at && tr.ended_at ? Cell(*tr.ended_at - *tr.started_at) : Cell());
    row.push_back(tr.failure.empty() ? Cell()
                  : table            ? Cell(FailureLine(tr.failure))
                                     : Cell(tr.failure));
    if (!table) row.push_back(tr.id);
    t.rows.push_back(std::move(row));
  }
  if (!table) full.kinds.clear();  // CSV: every number in full
  return full;
}

// The table of columns `keep` of `full`, in that order.
std::string Render(const FullTable& full, const std::vector<size_t>& keep, Format f) {
  Table t;
  std::vector<ColumnKind> kinds;
  for (size_t c : keep) {
    t.columns.push_back(full.t.columns[c]);
    if (!full.kinds.empty()) kinds.push_back(full.kinds[c]);
  }
  for (const auto& row : full.t.rows) {
    std::vector<Cell>& out = t.rows.emplace_back();
    for (size_t c : keep) out.push_back(row[c]);
  }
  return FormatRows(t, f, kinds);
}

size_t WidestLine(const std::string& text) {
  size_t widest = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    widest = std::max(widest, DisplayWidth(std::string_view(text).substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

}  // namespace

Result<std::string> FormatTrials(const std::vector<TrialView>& trials, Format f,
                                 const std::string& objective,
                                 const std::vector<std::string>& params,
                                 const TrialColumns& columns) {
  if (f == Format::kJson) {
    if (!columns.names.empty())
      return Status::InvalidArgument("--columns chooses table and CSV columns, not JSON's fields");
    std::string out = "[";
    for (size_t i = 0; i < trials.size(); ++i) {
      std::string json = TrialJson(trials[i]);
      if (columns.mark_pareto)
        json.insert(1, std::string("\"pareto\": ") +
                           (columns.pareto.count(trials[i].id) ? "true" : "false") + ", ");
      out += (i ? ",\n " : "") + json;
    }
    return out + "]\n";
  }
  const FullTable full = BuildTable(trials, f, objective, params, columns);
  const std::vector<std::string>& all = full.t.columns;
  std::vector<size_t> keep;
  if (!columns.names.empty()) {
    for (const std::string& name : columns.names) {
      auto it = std::find(all.begin(), all.end(), name);
      if (it == all.end()) {
        return Status::InvalidArgument("--columns: no column '" + name + "'" +
                                       DidYouMean(name, all) + " (the columns are " +
                                       JoinWords(all, 64) + ")");
      }
      keep.push_back(static_cast<size_t>(it - all.begin()));
    }
    return Render(full, keep, f);
  }
  if (f == Format::kCsv) {
    for (size_t c = 0; c < all.size(); ++c) keep.push_back(c);
    return Render(full, keep, f);
  }
  // The default table: what a person reads first. Start and end are in
  // --columns and CSV; attempts only when a trial had more than one.
  const bool retried =
      std::any_of(trials.begin(), trials.end(), [](const auto& x) { return x.attempts > 1; });
  for (size_t c = 0; c < all.size(); ++c) {
    const Role role = full.roles[c];
    if (role == Role::kTime || (role == Role::kAttempts && !retried)) continue;
    keep.push_back(c);
  }
  std::string out = Render(full, keep, f);
  // Too wide: the other metrics go, last first.
  std::vector<std::string> left_out;
  while (columns.width > 0 && WidestLine(out) > columns.width) {
    auto last = std::find_if(keep.rbegin(), keep.rend(),
                             [&](size_t c) { return full.roles[c] == Role::kMetric; });
    if (last == keep.rend()) break;
    left_out.insert(left_out.begin(), all[*last]);
    keep.erase(std::next(last).base());
    out = Render(full, keep, f);
  }
  if (!left_out.empty()) {
    out += "(" + std::to_string(left_out.size()) + " more column" +
           (left_out.size() > 1 ? "s" : "") +
           " past the terminal's width: " + EscapeControl(JoinWords(left_out)) +
           "; --columns chooses, --format csv has them all)\n";
  }
  return out;
}

}  // namespace sweep
