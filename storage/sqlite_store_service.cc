// The results database's rows for the service (`sweep serve`): which
// studies were submitted to it, by whom, with what weight and cap, and
// where the service that holds the database takes requests.
#include "common/clock.h"
#include "common/study_defaults.h"
#include "storage/sqlite_store.h"

namespace sweep {

Status Store::SetStudyService(int64_t study_id, const std::string& owner, double priority,
                              int64_t max_runners) {
  ASSIGN_OR_RETURN(Stmt up, Stmt::Prepare(db(),
                                          "UPDATE studies SET owner=?2, priority=?3, "
                                          "max_runners=?4, updated_at=?5 WHERE id=?1"));
  up.Bind(1, study_id).Bind(2, owner).Bind(3, priority).Bind(4, max_runners).Bind(5, WallSeconds());
  return up.Run().Wrap("storing study " + std::to_string(study_id) + "'s owner and priority");
}

Result<std::vector<Store::ServiceStudyRow>> Store::ServiceStudies(const std::string& name) {
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(),
                                         "SELECT id, name, spec, status, owner, priority, "
                                         "max_runners FROM studies WHERE owner IS NOT NULL "
                                         "AND (?1 = '' OR name = ?1) ORDER BY id"));
  q.Bind(1, name);
  std::vector<ServiceStudyRow> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    ServiceStudyRow r;
    r.id = q.Int(0);
    const std::string study = q.Text(1);
    std::string blob(static_cast<const char*>(sqlite3_column_blob(q.raw(), 2)),
                     static_cast<size_t>(sqlite3_column_bytes(q.raw(), 2)));
    if (!r.spec.ParseFromString(blob))
      return Status::Corruption("study '" + study + "': stored spec is unreadable");
    ResolveDefaults(&r.spec);
    auto status = ParseStudyStatus(q.Text(3));
    if (!status)
      return Status::Corruption("study '" + study + "' has an unknown status '" + q.Text(3) + "'");
    r.status = *status;
    r.owner = q.Text(4);
    r.priority = q.Double(5);
    r.max_runners = q.Int(6);
    out.push_back(std::move(r));
  }
  return out;
}

Status Store::SetService(int64_t pid, const std::string& control) {
  ASSIGN_OR_RETURN(Stmt up, Stmt::Prepare(db(),
                                          "INSERT OR REPLACE INTO service(id, pid, control, "
                                          "started_at) VALUES(1, ?1, ?2, ?3)"));
  up.Bind(1, pid).Bind(2, control).Bind(3, WallSeconds());
  return up.Run().Wrap("storing the service's control endpoint");
}

Status Store::ClearService() { return Exec(db(), "DELETE FROM service"); }

Status Store::AddPreemptedRun(int64_t trial_id, double ended_at, const std::string& cause) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db(),
                                         "INSERT INTO preempted_runs(trial_id, runner, started_at, "
                                         "ended_at, cause) SELECT id, runner, started_at, ?2, ?3 "
                                         "FROM trials WHERE id = ?1 AND runner IS NOT NULL AND "
                                         "started_at IS NOT NULL"));
  s.Bind(1, trial_id).Bind(2, ended_at).Bind(3, cause);
  return s.Run();
}

Status Store::AddLaunch(const LaunchRecord& r) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db(),
                                         "INSERT INTO launches(at, kind, job, gpus, detail) "
                                         "VALUES (?1, ?2, ?3, ?4, ?5)"));
  s.Bind(1, r.at).Bind(2, r.kind).Bind(3, r.job).Bind(4, r.gpus).Bind(5, r.detail);
  return s.Run();
}

}  // namespace sweep
