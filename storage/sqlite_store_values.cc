// The results database's trial values: a finished trial's objectives and
// constraint values (table trial_values), and the latest report of a metric
// they are taken from.
#include <cmath>

#include "storage/sqlite_store.h"
#include "storage/trial_values.h"

namespace sweep {

const char* ValueKindName(ValueKind kind) {
  return kind == ValueKind::kObjective ? "objective" : "constraint";
}

Status Store::RecordTrialValues(int64_t trial_id, const std::vector<TrialValue>& values) {
  ASSIGN_OR_RETURN(Stmt clear, Stmt::Prepare(db(), "DELETE FROM trial_values WHERE trial_id=?1"));
  clear.Bind(1, trial_id);
  RETURN_IF_ERROR(clear.Run().Wrap("recording a trial's values"));
  ASSIGN_OR_RETURN(Stmt insert,
                   Stmt::Prepare(db(),
                                 "INSERT INTO trial_values(trial_id, kind, position, metric, "
                                 "value, violation) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  for (const TrialValue& v : values) {
    insert.Bind(1, trial_id)
        .Bind(2, ValueKindName(v.kind))
        .Bind(3, int64_t{v.position})
        .Bind(4, v.metric)
        .Bind(5, v.value)
        .Bind(6, v.violation);
    RETURN_IF_ERROR(insert.Run().Wrap("recording a trial's values"));
  }
  return Status::Ok();
}

Result<std::map<int64_t, TrialValueSummary>> Store::LoadTrialValues(int64_t study_id,
                                                                    int objectives) {
  ASSIGN_OR_RETURN(Stmt q,
                   Stmt::Prepare(db(),
                                 "SELECT v.trial_id, v.kind, v.position, v.value, v.violation FROM "
                                 "trial_values v JOIN trials t ON t.id = v.trial_id WHERE "
                                 "t.study_id=?1 ORDER BY v.trial_id"));
  q.Bind(1, study_id);
  std::map<int64_t, TrialValueSummary> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    TrialValueSummary& s = out[q.Int(0)];
    if (s.objectives.empty()) s.objectives.assign(static_cast<size_t>(objectives), std::nan(""));
    const int64_t pos = q.Int(2);
    if (q.Text(1) == ValueKindName(ValueKind::kObjective)) {
      if (pos >= 0 && pos < objectives && !q.IsNull(3))
        s.objectives[static_cast<size_t>(pos)] = q.Double(3);
    } else {
      s.violation += q.IsNull(4) ? HUGE_VAL : q.Double(4);
    }
  }
  return out;
}

Result<std::map<std::tuple<int64_t, int, int64_t>, std::vector<double>>>
Store::LoadObjectiveReports(int64_t study_id, const std::vector<std::string>& metrics) {
  RETURN_IF_ERROR(FlushReports());
  std::map<std::tuple<int64_t, int, int64_t>, std::vector<double>> out;
  for (size_t k = 0; k < metrics.size(); ++k) {
    ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(),
                                           "SELECT t.number, r.attempt, r.step, r.value FROM "
                                           "reports r JOIN trials t ON t.id = r.trial_id WHERE "
                                           "t.study_id=?1 AND r.metric=?2"));
    q.Bind(1, study_id).Bind(2, metrics[k]);
    while (true) {
      ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      auto& v = out[{q.Int(0), static_cast<int>(q.Int(1)), q.Int(2)}];
      if (v.empty()) v.assign(metrics.size(), std::nan(""));
      v[k] = q.IsNull(3) ? std::nan("") : q.Double(3);
    }
  }
  return out;
}

Result<std::optional<double>> Store::LatestReported(int64_t trial_id, int64_t step,
                                                    const std::string& metric) {
  RETURN_IF_ERROR(FlushReports());
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(),
                                         "SELECT value FROM reports WHERE trial_id=?1 AND "
                                         "step<=?2 AND metric=?3 ORDER BY attempt DESC, step DESC "
                                         "LIMIT 1"));
  q.Bind(1, trial_id).Bind(2, step).Bind(3, metric);
  ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::optional<double>();
  return std::optional<double>(q.IsNull(0) ? std::nan("") : q.Double(0));
}

}  // namespace sweep
