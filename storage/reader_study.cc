// Reads over a whole study (summaries, reports, decisions), for the
// dashboard and `sweep report`; the per-trial reads are in reader.cc.
#include "storage/reader.h"

namespace sweep {
namespace {

// The per-status counts of a `trials t` grouped by study, in TrialStatus's
// order: the one place the database's status words are counted.
std::string CountColumns() {
  std::string sql;
  for (int i = 0; i < kTrialStatusCount; ++i) {
    sql += "coalesce(sum(t.status=" + Sql(static_cast<TrialStatus>(i)) + "), 0), ";
  }
  return sql;
}

}  // namespace

Result<std::vector<StudySummary>> Reader::StudySummaries(double now) {
  const std::string done = Sql(TrialStatus::kCompleted);
  ASSIGN_OR_RETURN(
      Stmt s, Stmt::Prepare(
                  db_.get(),
                  "SELECT s.id, s.name, s.objective_metric, s.goal, s.algorithm, s.status, "
                  "s.created_at, s.updated_at, " +
                      CountColumns() + "CASE s.goal WHEN 'maximize' THEN max(CASE WHEN t.status=" +
                      done + " THEN t.value END) ELSE min(CASE WHEN t.status=" + done +
                      " THEN t.value END) END, "
                      "min(t.started_at), max(t.ended_at), coalesce(sum(t.ended_at > ?1), 0), "
                      "s.owner, s.priority, s.max_runners, s.note, (SELECT group_concat(g.tag, "
                      "',') FROM (SELECT tag FROM study_tags WHERE study_id = s.id ORDER BY tag) "
                      "g) "
                      "FROM studies s LEFT JOIN trials t ON t.study_id = s.id GROUP BY s.id "
                      "ORDER BY s.id"));
  s.Bind(1, now - 60);
  std::vector<StudySummary> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    StudySummary m;
    m.ref = StudyRef{s.Int(0), s.Text(1), s.Text(2), s.Text(3) == "maximize"};
    m.algorithm = s.Text(4);
    auto status = ParseStudyStatus(s.Text(5));
    if (!status)
      return Status::Corruption(path_ + ": study '" + m.ref.name + "' has an unknown status '" +
                                s.Text(5) + "'");
    m.status = *status;
    m.created_at = s.Double(6);
    m.updated_at = s.Double(7);
    for (int i = 0; i < kTrialStatusCount; ++i)
      m.counts[static_cast<TrialStatus>(i)] = s.Int(8 + i);
    constexpr int c = 8 + kTrialStatusCount;
    if (!s.IsNull(c)) m.best = s.Double(c);
    if (!s.IsNull(c + 1)) m.first_started = s.Double(c + 1);
    if (!s.IsNull(c + 2)) m.last_ended = s.Double(c + 2);
    m.ended_last_minute = s.Int(c + 3);
    if (!s.IsNull(c + 4)) m.owner = s.Text(c + 4);
    m.priority = s.Double(c + 5);
    m.max_runners = s.Int(c + 6);
    m.note = s.Text(c + 7);
    // Tags hold no commas (storage/study_labels.h).
    if (!s.IsNull(c + 8)) {
      const std::string tags = s.Text(c + 8);
      for (size_t start = 0; start <= tags.size();) {
        size_t end = std::min(tags.find(',', start), tags.size());
        m.tags.push_back(tags.substr(start, end - start));
        start = end + 1;
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::string> Reader::Waiting(int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt w, Stmt::Prepare(db_.get(),
                                         "SELECT e.detail FROM events e WHERE e.study_id = ?1 "
                                         "AND e.kind = 'waiting' AND e.at >= coalesce((SELECT "
                                         "max(t.started_at) FROM trials t WHERE t.study_id = ?1), "
                                         "0) ORDER BY e.id DESC LIMIT 1"));
  w.Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, w.Step());
  return row ? w.Text(0) : std::string();
}

Result<std::optional<ServiceRow>> Reader::Service() {
  ASSIGN_OR_RETURN(Stmt q,
                   Stmt::Prepare(db_.get(), "SELECT pid, control, started_at FROM service"));
  ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::optional<ServiceRow>();
  return std::optional<ServiceRow>(ServiceRow{q.Int(0), q.Text(1), q.Double(2)});
}

Result<pb::Study> Reader::StudySpec(int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(), "SELECT spec FROM studies WHERE id=?1"));
  s.Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::NotFound("no study " + std::to_string(study_id) + " in " + path_);
  pb::Study study;
  if (!study.ParseFromArray(sqlite3_column_blob(s.raw(), 0), sqlite3_column_bytes(s.raw(), 0))) {
    return Status::Corruption(path_ + ": study " + std::to_string(study_id) +
                              ": column studies.spec is corrupt (not a Study)");
  }
  return study;
}

namespace {

// A row of (trial_id, attempt, step, value[, metric]).
ReportPoint ReadReport(const Stmt& s, bool with_metric) {
  ReportPoint p;
  p.trial_id = s.Int(0);
  p.attempt = static_cast<int>(s.Int(1));
  p.step = s.Int(2);
  if (!s.IsNull(3)) p.value = s.Double(3);
  if (with_metric) p.metric = s.Text(4);
  return p;
}

Result<std::vector<ReportPoint>> CollectReports(Stmt* s) {
  std::vector<ReportPoint> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s->Step());
    if (!row) break;
    out.push_back(ReadReport(*s, true));
  }
  return out;
}

}  // namespace

Status Reader::ForEachTrialReports(
    int64_t study_id, const std::string& metric,
    const std::function<Status(const std::vector<ReportPoint>&)>& each) {
  // Along the reports' primary key (trial_id, attempt, step, metric): no
  // sort, however many reports the study holds (a join from trials sorts
  // them all, 2.5x slower at 500,000).
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT r.trial_id, r.attempt, r.step, r.value FROM "
                                         "reports r WHERE r.trial_id IN (SELECT id FROM trials "
                                         "WHERE study_id=?1) AND r.metric=?2 ORDER BY "
                                         "r.trial_id, r.attempt, r.step"));
  s.Bind(1, study_id).Bind(2, metric);
  std::vector<ReportPoint> trial;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    int64_t id = row ? s.Int(0) : 0;
    if (!trial.empty() && (!row || id != trial.front().trial_id)) {
      RETURN_IF_ERROR(each(trial));
      trial.clear();
    }
    if (!row) return Status::Ok();
    trial.push_back(ReadReport(s, false));
  }
}

Result<std::vector<TrialView>> Reader::FinishedPoints(int64_t study_id) {
  ASSIGN_OR_RETURN(
      Stmt s, Stmt::Prepare(db_.get(),
                            "SELECT id, number, params_pb, value, status, step FROM "
                            "trials WHERE study_id=?1 AND status IN (" +
                                Sql(TrialStatus::kCompleted) + ", " + Sql(TrialStatus::kStopped) +
                                ") AND value IS NOT NULL ORDER BY id"));
  s.Bind(1, study_id);
  std::vector<TrialView> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    TrialView& t = out.emplace_back();
    t.id = s.Int(0);
    t.number = s.Int(1);
    t.status = s.Text(4) == TrialStatusName(TrialStatus::kStopped) ? TrialStatus::kStopped
                                                                   : TrialStatus::kCompleted;
    if (!s.IsNull(5)) t.step = s.Int(5);
    if (!t.params.ParseFromArray(sqlite3_column_blob(s.raw(), 2), sqlite3_column_bytes(s.raw(), 2)))
      return Status::Corruption(path_ + ": trial " + std::to_string(t.id) +
                                ": column trials.params_pb is corrupt (not a ParamSet)");
    t.value = s.Double(3);
  }
  return out;
}

Result<std::vector<TrialStatusRow>> Reader::TrialStatuses(int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT id, number, status FROM trials WHERE "
                                         "study_id=?1 ORDER BY id"));
  s.Bind(1, study_id);
  std::vector<TrialStatusRow> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    auto status = ParseTrialStatus(s.Text(2));
    if (!status)
      return Status::Corruption(path_ + ": trial " + std::to_string(s.Int(0)) +
                                " has an unknown status '" + s.Text(2) + "'");
    out.push_back({s.Int(0), s.Int(1), *status});
  }
  return out;
}

Result<std::vector<ReportPoint>> Reader::TrialReports(int64_t trial_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT trial_id, attempt, step, value, metric FROM "
                                         "reports WHERE trial_id=?1 ORDER BY metric, attempt, "
                                         "step"));
  s.Bind(1, trial_id);
  return CollectReports(&s);
}

Result<std::vector<StudyDecision>> Reader::StudyDecisions(int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT d.trial_id, t.number, d.id, d.step, d.decision, "
                                         "d.reason, d.at FROM decisions d JOIN trials t ON t.id = "
                                         "d.trial_id WHERE t.study_id=?1 ORDER BY d.id"));
  s.Bind(1, study_id);
  std::vector<StudyDecision> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(StudyDecision{
        s.Int(0), s.Int(1), DecisionView{s.Int(2), s.Int(3), s.Text(4), s.Text(5), s.Double(6)}});
  }
  return out;
}

Result<int64_t> Reader::DataVersion() {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(), "PRAGMA data_version"));
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::Internal(path_ + ": PRAGMA data_version returned nothing");
  return s.Int(0);
}

}  // namespace sweep
