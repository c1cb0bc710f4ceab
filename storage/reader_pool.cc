// The Reader's reads of runs: who held each runner lately across every
// study of a service's database, and the preemptions (the dashboard's pool
// view); one study's earlier runs (its timeline).
#include "storage/reader.h"
#include "storage/sqlite_util.h"

namespace sweep {

Result<std::vector<RunnerRun>> Reader::RecentRuns(size_t limit) {
  ASSIGN_OR_RETURN(
      Stmt s,
      Stmt::Prepare(
          db_.get(),
          "SELECT runner, study_id, id, number, status, started_at, ended_at, 0 "
          "FROM trials WHERE started_at IS NOT NULL AND runner IS NOT NULL "
          "UNION ALL SELECT p.runner, t.study_id, t.id, t.number, CASE p.cause WHEN "
          "'paused' THEN 'paused' ELSE t.status END, "
          "p.started_at, p.ended_at, p.cause = 'preempted' FROM preempted_runs p JOIN trials t ON "
          "t.id = p.trial_id ORDER BY 6 DESC LIMIT ?1"));
  s.Bind(1, static_cast<int64_t>(limit));
  std::vector<RunnerRun> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    RunnerRun r;
    r.runner = s.Text(0);
    r.study_id = s.Int(1);
    r.trial_id = s.Int(2);
    r.number = s.Int(3);
    r.status = ParseTrialStatus(s.Text(4)).value_or(TrialStatus::kRunning);
    r.started_at = s.Double(5);
    if (!s.IsNull(6)) r.ended_at = s.Double(6);
    r.preempted = s.Int(7) != 0;
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<RunnerRun>> Reader::EarlierRuns(int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT p.runner, t.id, t.number, p.started_at, "
                                         "p.ended_at, p.cause = 'preempted' FROM preempted_runs p "
                                         "JOIN trials t ON t.id = p.trial_id WHERE t.study_id = "
                                         "?1 ORDER BY p.started_at"));
  s.Bind(1, study_id);
  std::vector<RunnerRun> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    RunnerRun r;
    r.runner = s.Text(0);
    r.study_id = study_id;
    r.trial_id = s.Int(1);
    r.number = s.Int(2);
    r.started_at = s.Double(3);
    r.ended_at = s.Double(4);
    r.preempted = s.Int(5) != 0;
    r.status = r.preempted ? TrialStatus::kQueued : TrialStatus::kPaused;
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<PreemptionView>> Reader::RecentPreemptions(size_t limit) {
  ASSIGN_OR_RETURN(Stmt s,
                   Stmt::Prepare(db_.get(),
                                 "SELECT t.study_id, t.id, t.number, coalesce((SELECT p.runner "
                                 "FROM preempted_runs p WHERE p.trial_id = d.trial_id AND "
                                 "p.ended_at = d.at LIMIT 1), t.runner, ''), d.at, d.reason "
                                 "FROM decisions d JOIN trials t ON t.id = d.trial_id WHERE "
                                 "d.decision = 'preempt' ORDER BY d.id DESC LIMIT ?1"));
  s.Bind(1, static_cast<int64_t>(limit));
  std::vector<PreemptionView> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(PreemptionView{s.Int(0), s.Int(1), s.Int(2), s.Text(3), s.Double(4), s.Text(5)});
  }
  return out;
}

Result<std::vector<LaunchRecord>> Reader::RecentLaunches(size_t limit) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT at, kind, job, gpus, detail FROM launches ORDER "
                                         "BY id DESC LIMIT ?1"));
  s.Bind(1, static_cast<int64_t>(limit));
  std::vector<LaunchRecord> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(LaunchRecord{s.Double(0), s.Text(1), s.Text(2), s.Int(3), s.Text(4)});
  }
  return out;
}

}  // namespace sweep
