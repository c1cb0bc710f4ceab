// Results database: schema, migrations and the tuner's writes.
#include "storage/sqlite_store.h"

#include <sys/stat.h>

#include <cmath>

#include "common/clock.h"
#include "storage/db_files.h"
#include "storage/schema.h"

namespace sweep {

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, DbLock held) {
  std::unique_ptr<Store> s(new Store());
  s->path_ = path;
  // Only looks: before the lock, which makes the file.
  RETURN_IF_ERROR(CheckDbSideFiles(path));
  // The lock comes first: a second tuner is refused before it reads or
  // writes anything.
  if (held.held()) {
    s->lock_ = std::move(held);
  } else {
    ASSIGN_OR_RETURN(s->lock_, DbLock::Acquire(path));
  }
  struct stat before;
  const bool created = stat(path.c_str(), &before) != 0 || before.st_size == 0;
  ASSIGN_OR_RETURN(s->db_, Connection::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
  sqlite3* db = s->db();
  sqlite3_busy_timeout(db, 5000);
  // Before the first write (WAL mode is one): refuse what is not ours.
  RETURN_IF_ERROR(InspectDatabase(db, path).status());
  // WAL: readers never block the writer. synchronous=NORMAL: SQLite syncs
  // around checkpoints but not at each commit; WalSync fdatasyncs the WAL
  // after commits, off this thread, so a commit survives power loss, not
  // only a crash of the process, once its ticket is durable.
  // A new database is made with synchronous=OFF: SQLite's own syncs while
  // it is made (the switch to WAL through a rollback journal, four; the new
  // WAL's header and its folder, two) would only repeat what WalSync's first
  // sync does once the schema is in: sync the database file, its folder and
  // the WAL.
  RETURN_IF_ERROR(Exec(db, std::string("PRAGMA synchronous=") + (created ? "OFF" : "NORMAL") +
                               "; PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;")
                      .Wrap(path));
  {
    ASSIGN_OR_RETURN(Stmt mode, Stmt::Prepare(db, "PRAGMA journal_mode"));
    ASSIGN_OR_RETURN(bool row, mode.Step());
    if (!row || mode.Text(0) != "wal") {
      return Status::FailedPrecondition(
          path + ": could not switch the database to WAL mode (is it on a network file system?)");
    }
  }
  // The files SQLite resolved (a symlinked --db has its WAL beside the
  // file it points to).
  const char* main_file = sqlite3_db_filename(db, "main");
  if (main_file == nullptr || *main_file == '\0')
    return Status::Internal(path + ": SQLite names no file for the database");
  ASSIGN_OR_RETURN(s->wal_sync_, WalSync::Start(s->lock_.fd(), sqlite3_filename_wal(main_file)));
  auto migrated = s->Migrate();
  if (!migrated.ok()) return migrated.status().Wrap(path);
  if (created) RETURN_IF_ERROR(Exec(db, "PRAGMA synchronous=NORMAL").Wrap(path));
  // Synced beside what follows (opening the study, binding the socket):
  // every later commit's ticket comes after this one, so nothing is
  // acknowledged before the new schema is on disk.
  if (*migrated || created) s->wal_sync_->Request();
  RETURN_IF_ERROR(s->PrepareAll().Wrap(path));
  return s;
}

Result<bool> Store::Migrate() {
  ASSIGN_OR_RETURN(Stmt v, Stmt::Prepare(db(), "PRAGMA user_version"));
  ASSIGN_OR_RETURN(bool row, v.Step());
  int version = row ? static_cast<int>(v.Int(0)) : 0;
  v = Stmt();
  const auto& migrations = SchemaMigrations();
  if (version > static_cast<int>(migrations.size())) {
    return Status::FailedPrecondition("database schema version " + std::to_string(version) +
                                      " is newer than this sweep (" +
                                      std::to_string(migrations.size()) + "); upgrade sweep");
  }
  // Migration 2 was edited after its release: the first builds with it named
  // the checksum column crc32. Their databases sit at version 2, or at 3 or
  // 4 when a later build migrated them before failing on the column.
  ASSIGN_OR_RETURN(
      Stmt old,
      Stmt::Prepare(db(),
                    "SELECT count(*) FROM pragma_table_info('checkpoints') WHERE name='crc32'"));
  ASSIGN_OR_RETURN(row, old.Step());
  bool crc32 = row && old.Int(0) > 0;
  old = Stmt();
  if (version == static_cast<int>(migrations.size()) && !crc32) return false;
  // All pending migrations in one transaction: readers see the old schema or
  // the new one, never a half-built one.
  RETURN_IF_ERROR(Exec(db(), "BEGIN IMMEDIATE"));
  for (int i = version; i < static_cast<int>(migrations.size()); ++i) {
    Status st = Exec(db(), migrations[i]);
    if (st.ok()) st = Exec(db(), "PRAGMA user_version=" + std::to_string(i + 1));
    if (!st.ok()) {
      (void)Exec(db(), "ROLLBACK");
      return st.Wrap("migrating schema to version " + std::to_string(i + 1));
    }
  }
  if (crc32) {
    // The old values are CRC-32s, not Adler-32s: a trial resuming from one
    // fails the checksum and restarts from scratch, which the tuner records.
    Status st = Exec(db(), "ALTER TABLE checkpoints RENAME COLUMN crc32 TO checksum");
    if (!st.ok()) {
      (void)Exec(db(), "ROLLBACK");
      return st.Wrap("renaming checkpoints.crc32 to checksum");
    }
  }
  RETURN_IF_ERROR(Exec(db(), "COMMIT"));
  return true;
}

Status Store::PrepareAll() {
  using S = TrialStatus;
  auto prep = [&](Stmt* s, const std::string& sql) -> Status {
    auto r = Stmt::Prepare(db(), sql);
    if (!r.ok()) return r.status().Wrap(sql);
    *s = std::move(r).value();
    return Status::Ok();
  };
  RETURN_IF_ERROR(prep(&begin_, "BEGIN IMMEDIATE"));
  RETURN_IF_ERROR(prep(&commit_, "COMMIT"));
  RETURN_IF_ERROR(
      prep(&insert_trial_,
           "INSERT INTO trials(study_id, number, status, params, params_pb, attempts, created_at, "
           "parent_id, parent_step) VALUES(?1, ?2, " +
               Sql(S::kQueued) + ", ?3, ?4, 0, ?5, ?6, ?7)"));
  RETURN_IF_ERROR(prep(&insert_running_trial_,
                       "INSERT INTO trials(study_id, number, status, params, params_pb, attempts, "
                       "runner, lease, created_at, started_at) "
                       "VALUES(?1, ?2, " +
                           Sql(S::kRunning) + ", ?3, ?4, 1, ?5, ?6, ?7, ?7)"));
  RETURN_IF_ERROR(prep(&mark_running_, "UPDATE trials SET status=" + Sql(S::kRunning) +
                                           ", runner=?2, lease=?3, attempts=?4, started_at=?5, "
                                           "step=NULL, value=NULL, attempt_open=0 WHERE id=?1"));
  RETURN_IF_ERROR(
      prep(&requeue_, "UPDATE trials SET status=" + Sql(S::kQueued) +
                          ", runner=NULL, lease=NULL, attempts=?2, attempt_open=?3 WHERE id=?1"));
  RETURN_IF_ERROR(prep(
      &pause_, "UPDATE trials SET status=" + Sql(S::kPaused) +
                   ", runner=NULL, lease=NULL, attempts=?2, step=?3, value=?4, attempt_open=?5 "
                   "WHERE id=?1"));
  // A step run again within one attempt (a promoted trial without a
  // checkpoint, a run cut short by a tuner restart) keeps its first report:
  // the value the algorithm judged, at its time, so that replaying the
  // reports in time order rebuilds the decisions that were carried out.
  RETURN_IF_ERROR(prep(&insert_report_,
                       "INSERT OR IGNORE INTO reports(trial_id, attempt, step, metric, value, at) "
                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
  {
    std::string sql =
        "INSERT OR IGNORE INTO reports(trial_id, attempt, step, metric, value, at) VALUES";
    for (int i = 0; i < kReportBatch; ++i) sql += i == 0 ? "(?,?,?,?,?,?)" : ",(?,?,?,?,?,?)";
    RETURN_IF_ERROR(prep(&insert_reports_, sql.c_str()));
  }
  RETURN_IF_ERROR(prep(&progress_, "UPDATE trials SET step=?2, value=?3 WHERE id=?1"));
  RETURN_IF_ERROR(
      prep(&finish_,
           "UPDATE trials SET status=?2, value=?3, step=?4, metrics=?5, failure=?6, ended_at=?7, "
           "lease=NULL WHERE id=?1"));
  RETURN_IF_ERROR(
      prep(&event_,
           "INSERT INTO events(study_id, trial_id, at, kind, detail) VALUES(?1, ?2, ?3, ?4, ?5)"));
  RETURN_IF_ERROR(prep(&study_status_, "UPDATE studies SET status=?2, updated_at=?3 WHERE id=?1"));
  RETURN_IF_ERROR(prep(
      &decision_,
      "INSERT INTO decisions(trial_id, step, decision, reason, at) VALUES(?1, ?2, ?3, ?4, ?5)"));
  RETURN_IF_ERROR(
      prep(&checkpoint_,
           "INSERT OR REPLACE INTO checkpoints(trial_id, step, path, bytes, checksum, at) "
           "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
  // A step's checkpoint stored again (its trial re-ran after an unreadable
  // one) keeps the time it was first there: the replay's order.
  RETURN_IF_ERROR(prep(&checkpoint_history_,
                       "INSERT INTO checkpoint_history(trial_id, step, bytes, checksum, at) "
                       "VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(trial_id, step) DO UPDATE SET "
                       "bytes = excluded.bytes, checksum = excluded.checksum"));
  RETURN_IF_ERROR(prep(&log_,
                       "INSERT OR REPLACE INTO trial_logs(trial_id, attempt, path, bytes, dropped, "
                       "tail, at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  return Status::Ok();
}

Result<std::vector<TrialRecord>> Store::LoadTrials(int64_t study_id) {
  ASSIGN_OR_RETURN(
      Stmt q,
      Stmt::Prepare(db(),
                    "SELECT t.id, t.number, t.status, t.attempts, t.params_pb, "
                    "t.value, t.step, c.path, c.step, c.checksum, t.parent_id, "
                    "(SELECT max(d.step) FROM decisions d WHERE d.trial_id = t.id "
                    "AND d.decision IN ('continue', 'stop')), "
                    "t.attempt_open, (SELECT max(r.step) FROM reports r WHERE r.trial_id = t.id "
                    "AND r.attempt = t.attempts AND r.metric = (SELECT objective_metric FROM "
                    "studies s WHERE s.id = t.study_id)) "
                    "FROM trials t LEFT JOIN checkpoints c ON c.trial_id = t.id "
                    "WHERE t.study_id=?1 ORDER BY t.number"));
  q.Bind(1, study_id);
  std::vector<TrialRecord> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    TrialRecord t;
    t.id = q.Int(0);
    t.number = q.Int(1);
    auto status = ParseTrialStatus(q.Text(2));
    if (!status) {
      return Status::Corruption("trial " + std::to_string(t.number) + " (id " +
                                std::to_string(t.id) + ") has an unknown status '" + q.Text(2) +
                                "'");
    }
    t.status = *status;
    t.attempts = static_cast<int>(q.Int(3));
    if (!t.params.ParseFromArray(sqlite3_column_blob(q.raw(), 4),
                                 sqlite3_column_bytes(q.raw(), 4))) {
      return Status::Corruption("trial " + std::to_string(t.number) + " (id " +
                                std::to_string(t.id) + ")" + ": stored parameters are unreadable");
    }
    if (!q.IsNull(5)) t.value = q.Double(5);
    t.step = q.IsNull(6) ? 0 : q.Int(6);
    t.checkpoint_path = q.Text(7);
    t.checkpoint_step = q.IsNull(8) ? 0 : q.Int(8);
    t.checkpoint_checksum = q.IsNull(9) ? 0 : static_cast<uint32_t>(q.Int(9));
    t.last_objective = t.value;
    t.parent_id = q.IsNull(10) ? 0 : q.Int(10);
    t.decided_step = q.IsNull(11) ? -1 : q.Int(11);
    t.attempt_open = q.Int(12) != 0;
    t.reported_step = q.IsNull(13) ? 0 : q.Int(13);
    out.push_back(std::move(t));
  }
  return out;
}

Status Store::Begin() {
  if (in_tx_) return Status::Ok();
  RETURN_IF_ERROR(begin_.Run().Wrap("BEGIN"));
  in_tx_ = true;
  return Status::Ok();
}

Status Store::Commit() {
  ASSIGN_OR_RETURN(uint64_t ticket, CommitNoWait());
  return wal_sync_->Wait(ticket).Wrap("making the commit durable");
}

Result<uint64_t> Store::CommitNoWait() {
  if (!in_tx_) return wal_sync_->requested();
  Status st = FlushReports();
  if (!st.ok()) {
    Rollback();
    return st;
  }
  st = commit_.Run();
  if (!st.ok()) {
    Rollback();
    return st.Wrap("COMMIT");
  }
  in_tx_ = false;
  return wal_sync_->Request();
}

void Store::Rollback() {
  reports_.clear();
  if (sqlite3_get_autocommit(db()) == 0) (void)Exec(db(), "ROLLBACK");
  in_tx_ = false;
}

Status Store::Savepoint(const std::string& name) { return Exec(db(), "SAVEPOINT " + name); }
Status Store::ReleaseSavepoint(const std::string& name) { return Exec(db(), "RELEASE " + name); }
Status Store::UndoToSavepoint(const std::string& name) {
  RETURN_IF_ERROR(Exec(db(), "ROLLBACK TO " + name));
  return ReleaseSavepoint(name);
}

Result<int64_t> Store::InsertTrial(int64_t study_id, int64_t number, const pb::ParamSet& params,
                                   const std::string& params_json, double now, int64_t parent_id,
                                   int64_t parent_step) {
  insert_trial_.Bind(1, study_id)
      .Bind(2, number)
      .Bind(3, params_json)
      .BindBlob(4, params.SerializeAsString())
      .Bind(5, now);
  if (parent_id > 0) {
    insert_trial_.Bind(6, parent_id).Bind(7, parent_step);
  } else {
    insert_trial_.BindNull(6).BindNull(7);
  }
  RETURN_IF_ERROR(insert_trial_.Run().Wrap("inserting trial " + std::to_string(number)));
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db()));
}

Result<int64_t> Store::InsertRunningTrial(int64_t study_id, int64_t number,
                                          const pb::ParamSet& params,
                                          const std::string& params_json, const std::string& runner,
                                          uint64_t lease, double now) {
  insert_running_trial_.Bind(1, study_id)
      .Bind(2, number)
      .Bind(3, params_json)
      .BindBlob(4, params.SerializeAsString())
      .Bind(5, runner)
      .Bind(6, lease)
      .Bind(7, now);
  RETURN_IF_ERROR(insert_running_trial_.Run().Wrap("inserting trial " + std::to_string(number)));
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db()));
}

Status Store::MarkRunning(int64_t trial_id, const std::string& runner, uint64_t lease, int attempts,
                          double now) {
  mark_running_.Bind(1, trial_id).Bind(2, runner).Bind(3, lease).Bind(4, attempts).Bind(5, now);
  return mark_running_.Run();
}

Status Store::Requeue(int64_t trial_id, int attempts, bool attempt_open) {
  requeue_.Bind(1, trial_id).Bind(2, attempts).Bind(3, int64_t{attempt_open});
  return requeue_.Run();
}

Status Store::Pause(int64_t trial_id, int attempts, int64_t step, std::optional<double> value,
                    bool attempt_open) {
  pause_.Bind(1, trial_id)
      .Bind(2, attempts)
      .Bind(3, step)
      .Bind(4, value)
      .Bind(5, int64_t{attempt_open});
  return pause_.Run();
}

Status Store::InsertReport(int64_t trial_id, int attempt, int64_t step, const std::string& metric,
                           double value, double now) {
  reports_.push_back({trial_id, attempt, step, metric, value, now});
  if (static_cast<int>(reports_.size()) < kReportBatch) return Status::Ok();
  return FlushReports();
}

Status Store::FlushReports() {
  size_t i = 0;
  auto bind = [&](Stmt& s, int first, const PendingReport& r) {
    s.Bind(first, r.trial_id)
        .Bind(first + 1, r.attempt)
        .Bind(first + 2, r.step)
        .Bind(first + 3, r.metric)
        .Bind(first + 4, r.value)
        .Bind(first + 5, r.at);
  };
  Status st;
  for (; st.ok() && i + kReportBatch <= reports_.size(); i += kReportBatch) {
    for (int k = 0; k < kReportBatch; ++k) bind(insert_reports_, 1 + 6 * k, reports_[i + k]);
    st = insert_reports_.Run().Wrap("recording reports");
  }
  for (; st.ok() && i < reports_.size(); ++i) {
    bind(insert_report_, 1, reports_[i]);
    st = insert_report_.Run().Wrap("recording a report");
  }
  reports_.clear();
  return st;
}

Result<std::optional<double>> Store::ReportedValue(int64_t trial_id, int attempt, int64_t step,
                                                   const std::string& metric) {
  RETURN_IF_ERROR(FlushReports());
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(),
                                         "SELECT value FROM reports WHERE trial_id=?1 AND "
                                         "attempt=?2 AND step=?3 AND metric=?4"));
  q.Bind(1, trial_id).Bind(2, int64_t{attempt}).Bind(3, step).Bind(4, metric);
  ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::optional<double>();
  return std::optional<double>(q.IsNull(0) ? std::nan("") : q.Double(0));
}

Status Store::SetProgress(int64_t trial_id, int64_t step, std::optional<double> value) {
  progress_.Bind(1, trial_id).Bind(2, step).Bind(3, value);
  return progress_.Run();
}

Status Store::FinishTrial(int64_t trial_id, TrialStatus status, std::optional<double> value,
                          int64_t step, const std::string& metrics_json, const std::string& failure,
                          double now) {
  finish_.Bind(1, trial_id)
      .Bind(2, TrialStatusName(status))
      .Bind(3, value)
      .Bind(4, step)
      .Bind(5, metrics_json);
  if (failure.empty())
    finish_.BindNull(6);
  else
    finish_.Bind(6, failure);
  finish_.Bind(7, now);
  return finish_.Run();
}

Status Store::AddEvent(int64_t study_id, int64_t trial_id, const std::string& kind,
                       const std::string& detail, double now) {
  event_.Bind(1, study_id);
  if (trial_id > 0)
    event_.Bind(2, trial_id);
  else
    event_.BindNull(2);
  event_.Bind(3, now).Bind(4, kind).Bind(5, detail);
  return event_.Run();
}

Status Store::RecordLog(int64_t trial_id, int attempt, const std::string& path, int64_t bytes,
                        int64_t dropped, const std::string& tail, double now) {
  log_.Bind(1, trial_id).Bind(2, int64_t{attempt}).Bind(3, path).Bind(4, bytes).Bind(5, dropped);
  log_.Bind(6, tail).Bind(7, now);
  return log_.Run();
}

Status Store::DropCheckpoint(int64_t trial_id) {
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(), "DELETE FROM checkpoints WHERE trial_id=?1"));
  q.Bind(1, trial_id);
  return q.Run();
}

Status Store::RecordCheckpoint(int64_t trial_id, int64_t step, const std::string& path,
                               int64_t bytes, uint32_t checksum, double now) {
  checkpoint_.Bind(1, trial_id)
      .Bind(2, step)
      .Bind(3, path)
      .Bind(4, bytes)
      .Bind(5, static_cast<int64_t>(checksum))
      .Bind(6, now);
  RETURN_IF_ERROR(checkpoint_.Run());
  checkpoint_history_.Bind(1, trial_id)
      .Bind(2, step)
      .Bind(3, bytes)
      .Bind(4, static_cast<int64_t>(checksum))
      .Bind(5, now);
  return checkpoint_history_.Run();
}

Status Store::AddDecision(int64_t trial_id, int64_t step, const std::string& decision,
                          const std::string& reason, double now) {
  decision_.Bind(1, trial_id).Bind(2, step).Bind(3, decision).Bind(4, reason).Bind(5, now);
  return decision_.Run();
}

Result<std::vector<Store::HistoryEvent>> Store::LoadHistory(int64_t study_id,
                                                            const std::string& metric) {
  RETURN_IF_ERROR(FlushReports());  // what it reads includes them
  ASSIGN_OR_RETURN(
      Stmt q,
      Stmt::Prepare(db(),
                    "SELECT kind, number, step, value, at, attempt FROM ("
                    " SELECT 1 AS kind, t.number, r.step, r.value, r.at, r.attempt FROM reports r"
                    "  JOIN trials t ON t.id = r.trial_id WHERE t.study_id=?1 AND r.metric=?2"
                    " UNION ALL SELECT 0, t.number, h.step, NULL, h.at, 0 FROM checkpoint_history h"
                    "  JOIN trials t ON t.id = h.trial_id WHERE t.study_id=?1"
                    " UNION ALL SELECT 2, t.number, t.step, NULL, t.ended_at, 0 FROM trials t"
                    "  WHERE t.study_id=?1 AND t.status IN " +
                        SqlFinishedStatuses() + ") ORDER BY at, kind, number, attempt, step"));
  q.Bind(1, study_id).Bind(2, metric);
  std::vector<HistoryEvent> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.push_back({static_cast<HistoryEvent::Kind>(q.Int(0)), q.Int(1), q.IsNull(2) ? 0 : q.Int(2),
                   q.IsNull(3) ? std::nan("") : q.Double(3),
                   q.IsNull(4) ? std::nan("") : q.Double(4), static_cast<int>(q.Int(5))});
  }
  return out;
}

Result<std::string> Store::TrialMetrics(int64_t trial_id) {
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(), "SELECT metrics FROM trials WHERE id=?1"));
  q.Bind(1, trial_id);
  ASSIGN_OR_RETURN(bool row, q.Step());
  return row ? q.Text(0) : std::string();
}

Status Store::SetStudyStatus(int64_t study_id, StudyStatus status, double now) {
  study_status_.Bind(1, study_id).Bind(2, StudyStatusName(status)).Bind(3, now);
  return study_status_.Run();
}

}  // namespace sweep
