// Schema migrations.
#include "storage/schema.h"

#include "storage/sqlite_util.h"

namespace sweep {

const std::vector<std::string>& SchemaMigrations() {
  static const std::vector<std::string> kMigrations = {
      // 1: studies, trials, reports, events.
      R"sql(
CREATE TABLE studies(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  objective_metric TEXT NOT NULL,
  goal TEXT NOT NULL CHECK(goal IN ('minimize', 'maximize')),
  algorithm TEXT NOT NULL,
  seed INTEGER NOT NULL,
  spec_json TEXT NOT NULL,
  spec BLOB NOT NULL,
  status TEXT NOT NULL,
  created_at REAL NOT NULL,
  updated_at REAL NOT NULL);
CREATE TABLE trials(
  id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL REFERENCES studies(id),
  number INTEGER NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('queued', 'running', 'completed', 'failed', 'stopped', 'paused')),
  params TEXT NOT NULL,
  params_pb BLOB NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  runner TEXT,
  lease INTEGER,
  value REAL,
  step INTEGER,
  metrics TEXT,
  failure TEXT,
  created_at REAL NOT NULL,
  started_at REAL,
  ended_at REAL,
  UNIQUE(study_id, number));
CREATE INDEX trials_by_status ON trials(study_id, status);
CREATE TABLE reports(
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  attempt INTEGER NOT NULL,
  step INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL,
  at REAL NOT NULL,
  PRIMARY KEY(trial_id, attempt, step, metric)) WITHOUT ROWID;
CREATE TABLE events(
  id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL REFERENCES studies(id),
  trial_id INTEGER REFERENCES trials(id),
  at REAL NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL);
CREATE INDEX events_by_trial ON events(trial_id);
)sql",
      // 2: checkpoints (the latest committed one per trial).
      R"sql(
CREATE TABLE checkpoints(
  trial_id INTEGER PRIMARY KEY REFERENCES trials(id),
  step INTEGER NOT NULL,
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  checksum INTEGER NOT NULL,  -- Adler-32 of the file
  at REAL NOT NULL);
)sql",
      // 3: decisions an algorithm took on a trial, with their reasons.
      R"sql(
CREATE TABLE decisions(
  id INTEGER PRIMARY KEY,
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  step INTEGER NOT NULL,
  decision TEXT NOT NULL,
  reason TEXT NOT NULL,
  at REAL NOT NULL);
CREATE INDEX decisions_by_trial ON decisions(trial_id);
)sql",
      // 4: pausing algorithms and PBT lineage. checkpoint_history keeps every
      // committed checkpoint's (step, checksum) after its file is replaced,
      // so a resumed tuner knows which trials could be exploit sources.
      R"sql(
ALTER TABLE trials ADD COLUMN parent_id INTEGER REFERENCES trials(id);
ALTER TABLE trials ADD COLUMN parent_step INTEGER;
CREATE TABLE checkpoint_history(
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  step INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  checksum INTEGER NOT NULL,
  at REAL NOT NULL,
  PRIMARY KEY(trial_id, step)) WITHOUT ROWID;
)sql",
      // 5: command trials' logs: the file beside the database per attempt,
      // and its last bytes, so the end of a log survives the file.
      R"sql(
CREATE TABLE trial_logs(
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  attempt INTEGER NOT NULL,
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,  -- kept in the file (at most the cap)
  dropped INTEGER NOT NULL,  -- past the cap, not kept
  tail TEXT NOT NULL,  -- the last 4 KiB
  at REAL NOT NULL,
  PRIMARY KEY(trial_id, attempt)) WITHOUT ROWID;
)sql",
      // 6: whether a trial's next run continues its latest attempt (paused,
      // or cut short by Ctrl-C or a killed tuner) or begins a new one.
      R"sql(
ALTER TABLE trials ADD COLUMN attempt_open INTEGER NOT NULL DEFAULT 0;
UPDATE trials SET attempt_open = 1 WHERE status = 'paused';
)sql",
      // 7: the service (`sweep serve`): who submitted a study, its weight
      // in the fair share and its cap on runners; and where the service
      // that holds the database takes requests (one row while one runs).
      R"sql(
ALTER TABLE studies ADD COLUMN owner TEXT;
ALTER TABLE studies ADD COLUMN priority REAL NOT NULL DEFAULT 1;
ALTER TABLE studies ADD COLUMN max_runners INTEGER NOT NULL DEFAULT 0;
CREATE TABLE service(
  id INTEGER PRIMARY KEY CHECK(id = 1),
  pid INTEGER NOT NULL,
  control TEXT NOT NULL,
  started_at REAL NOT NULL);
)sql",
      // 8: the runs a preemption or a pause cut short (a trial's latest run
      // is its row in trials): who held each runner before, for the
      // dashboard's pool view.
      R"sql(
CREATE TABLE preempted_runs(
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  runner TEXT NOT NULL,
  started_at REAL NOT NULL,
  ended_at REAL NOT NULL);
CREATE INDEX preempted_runs_trial ON preempted_runs(trial_id);
)sql",
      // 9: what a service's launcher did (sweep serve --launcher slurm):
      // runner jobs submitted, started, cancelled, ended, or refused.
      R"sql(
CREATE TABLE launches(
  id INTEGER PRIMARY KEY,
  at REAL NOT NULL,
  kind TEXT NOT NULL,
  job TEXT NOT NULL,
  gpus INTEGER NOT NULL,
  detail TEXT NOT NULL);
)sql",
      // 10: how long tuners have run each study, summed over its runs
      // (algorithm.time_limit counts it), and the study file it was last
      // run from (the hint that resumes it).
      R"sql(
ALTER TABLE studies ADD COLUMN run_seconds REAL NOT NULL DEFAULT 0;
ALTER TABLE studies ADD COLUMN study_file TEXT;
)sql",
      // 11: a study's note and tags (sweep note, sweep tag), and why each
      // earlier run of a trial ended: 'preempted' (a service took its
      // runner) or 'paused' (Hyperband's rungs), for the timelines.
      R"sql(
ALTER TABLE studies ADD COLUMN note TEXT NOT NULL DEFAULT '';
CREATE TABLE study_tags(
  study_id INTEGER NOT NULL REFERENCES studies(id),
  tag TEXT NOT NULL,
  PRIMARY KEY(study_id, tag));
ALTER TABLE preempted_runs ADD COLUMN cause TEXT NOT NULL DEFAULT 'preempted';
)sql",
      // 12: a finished trial's objectives and outcome-constraint values, for
      // studies with several objectives or with constraints
      // (storage/trial_values.h): `position` is the objective's or the
      // constraint's place in the study; `violation` how far a constraint's
      // value lies outside its bounds (0: it holds; NULL with the value NULL
      // or not a number: broken).
      R"sql(
CREATE TABLE trial_values(
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  kind TEXT NOT NULL CHECK(kind IN ('objective', 'constraint')),
  position INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL,
  violation REAL,
  PRIMARY KEY(trial_id, kind, position)) WITHOUT ROWID;
)sql",
  };
  return kMigrations;
}

Result<int> InspectDatabase(sqlite3* db, const std::string& path) {
  auto fail = [&](const std::string& what) {
    return Status::FailedPrecondition(path + ": " + what +
                                      "; sweep did not change it (use another --db)");
  };
  // The first read of a file that is not SQLite fails here (SQLITE_NOTADB,
  // a kCorruption); other errors (busy, I/O) pass through as they are.
  auto not_sqlite = [&](const Status& st) {
    return st.IsCorruption() ? fail("not a sweep results database (" + st.message() + ")")
                             : st.Wrap(path);
  };
  auto version_stmt = Stmt::Prepare(db, "PRAGMA user_version");
  if (!version_stmt.ok()) return not_sqlite(version_stmt.status());
  auto row = version_stmt->Step();
  if (!row.ok()) return not_sqlite(row.status());
  int version = *row ? static_cast<int>(version_stmt->Int(0)) : 0;
  ASSIGN_OR_RETURN(
      Stmt objects,
      Stmt::Prepare(db,
                    "SELECT count(*), coalesce(sum(type='table' AND name='studies'), 0) "
                    "FROM sqlite_master"));
  ASSIGN_OR_RETURN(row, objects.Step());
  int64_t count = *row ? objects.Int(0) : 0;
  bool studies = *row && objects.Int(1) > 0;
  int latest = static_cast<int>(SchemaMigrations().size());
  if (version > latest) {
    return Status::FailedPrecondition(path + ": database schema version " +
                                      std::to_string(version) + " is newer than this sweep (" +
                                      std::to_string(latest) + "); upgrade sweep");
  }
  if (version == 0 && count == 0) return 0;  // empty: a new database
  if (!studies || version == 0) {
    return fail("not a sweep results database (it holds " + std::to_string(count) +
                " tables or indexes, schema version " + std::to_string(version) +
                ", and no sweep schema)");
  }
  return version;
}

}  // namespace sweep
