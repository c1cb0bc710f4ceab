// Explaining a trial from the decisions and events tables.
#include "cli/why.h"

#include "common/json.h"

namespace sweep {

namespace {
std::string Str(const Cell& c) {
  if (auto* s = std::get_if<std::string>(&c)) return *s;
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) return FormatDouble(*d);
  return "-";
}
}  // namespace

Result<std::string> ExplainTrial(Reader& reader, int64_t id) {
  std::string sid = std::to_string(id);
  ASSIGN_OR_RETURN(
      Table t, reader.Query("SELECT t.id, s.name, t.status, t.step, t.attempts, t.value, t.params, "
                            "t.failure, s.objective_metric, t.number, t.parent_id, t.parent_step, "
                            "(SELECT number FROM trials p WHERE p.id = t.parent_id) "
                            "FROM trials t JOIN studies s ON s.id = t.study_id WHERE t.id = " +
                            sid));
  if (t.rows.empty()) return Status::Error("no trial " + sid + " in this database");
  const auto& r = t.rows[0];
  std::string out = "trial " + sid + " (number " + Str(r[9]) + ") of study '" + Str(r[1]) +
                    "': " + Str(r[2]) + " at step " + Str(r[3]) + " after " + Str(r[4]) +
                    " attempt(s); " + Str(r[8]) + " = " + Str(r[5]) + "\n";
  out += "params " + Str(r[6]) + "\n";
  if (!std::holds_alternative<std::monostate>(r[7])) out += "failure: " + Str(r[7]) + "\n";
  if (!std::holds_alternative<std::monostate>(r[10])) {
    out += "parent: trial " + Str(r[10]) + " (number " + Str(r[12]) + "), copied at step " +
           Str(r[11]) + "\n";
  }
  ASSIGN_OR_RETURN(Table kids, reader.Query("SELECT id, number, parent_step FROM trials WHERE "
                                            "parent_id = " +
                                            sid + " ORDER BY id"));
  for (const auto& k : kids.rows) {
    out += "child: trial " + Str(k[0]) + " (number " + Str(k[1]) + "), copied at step " +
           Str(k[2]) + "\n";
  }
  ASSIGN_OR_RETURN(
      Table d, reader.Query("SELECT step, decision, reason FROM decisions WHERE trial_id = " + sid +
                            " ORDER BY id"));
  if (d.rows.empty()) {
    out += "decisions: none (the algorithm let it run to its end)\n";
  } else {
    out += "decisions:\n";
    for (const auto& row : d.rows)
      out += "  step " + Str(row[0]) + "  " + Str(row[1]) + ": " + Str(row[2]) + "\n";
  }
  ASSIGN_OR_RETURN(Table e, reader.Query("SELECT kind, detail FROM events WHERE trial_id = " + sid +
                                         " ORDER BY id"));
  if (!e.rows.empty()) {
    out += "events:\n";
    for (const auto& row : e.rows) out += "  " + Str(row[0]) + ": " + Str(row[1]) + "\n";
  }
  return out;
}

}  // namespace sweep
