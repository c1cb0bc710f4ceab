// Opening a database written at every earlier schema version: the data
// survives and the schema is current. Each old layout is rebuilt here with
// plain SQL, as that version's sweep created it (see `git log -p
// storage/schema.cc`), so that a later edit of the migrations cannot make
// these tests agree with it by accident.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "storage/reader.h"
#include "tests/storage/store_fixture.h"

namespace sweep {
namespace {

// Version 1 (6bb2984): studies, trials, reports, events.
constexpr char kV1[] = R"sql(
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
)sql";

// Version 2 as first released (0a0c653): the checksum column was `crc32`.
constexpr char kV2Crc32[] = R"sql(
CREATE TABLE checkpoints(
  trial_id INTEGER PRIMARY KEY REFERENCES trials(id),
  step INTEGER NOT NULL,
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  crc32 INTEGER NOT NULL,
  at REAL NOT NULL);
)sql";

// Version 2 from 51c6c6b on: the same table with an Adler-32 `checksum`.
constexpr char kV2[] = R"sql(
CREATE TABLE checkpoints(
  trial_id INTEGER PRIMARY KEY REFERENCES trials(id),
  step INTEGER NOT NULL,
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  checksum INTEGER NOT NULL,  -- Adler-32 of the file
  at REAL NOT NULL);
)sql";

// Version 3 (2e94115): decisions.
constexpr char kV3[] = R"sql(
CREATE TABLE decisions(
  id INTEGER PRIMARY KEY,
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  step INTEGER NOT NULL,
  decision TEXT NOT NULL,
  reason TEXT NOT NULL,
  at REAL NOT NULL);
CREATE INDEX decisions_by_trial ON decisions(trial_id);
)sql";

struct Layout {
  const char* name;
  int version;
  bool crc32;  // checkpoints as 0a0c653 wrote them
};

std::string PrintLayout(const ::testing::TestParamInfo<Layout>& info) { return info.param.name; }

class MigrationTest : public StoreFixture, public ::testing::WithParamInterface<Layout> {
 protected:
  void Exec(sqlite3* db, const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "") << "\n"
        << sql;
  }

  // Writes the old layout with a study, a completed trial (with a report, an
  // event and, from version 2, a checkpoint; from version 3, a decision) and
  // a queued one.
  void WriteOld(const Layout& l) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    Exec(db, kV1);
    if (l.version >= 2) Exec(db, l.crc32 ? kV2Crc32 : kV2);
    if (l.version >= 3) Exec(db, kV3);
    Exec(db, "PRAGMA user_version=" + std::to_string(l.version));
    std::string spec;
    ASSERT_TRUE(study_.SerializeToString(&spec));
    {
      auto ins = Stmt::Prepare(db,
                               "INSERT INTO studies(id, name, objective_metric, goal, algorithm, "
                               "seed, spec_json, spec, status, created_at, updated_at) VALUES(7, "
                               "'s', 'value', 'minimize', 'random', 0, '{}', ?1, 'running', 1, 1)");
      ASSERT_TRUE(ins.ok()) << ins.status().message();
      ins->BindBlob(1, spec);
      ASSERT_TRUE(ins->Run().ok());
      auto trial = Stmt::Prepare(
          db,
          "INSERT INTO trials(id, study_id, number, status, params, params_pb, attempts, runner, "
          "value, step, metrics, created_at, started_at, ended_at) VALUES(?1, 7, ?2, ?3, ?4, ?5, "
          "?6, ?7, ?8, ?9, ?10, 1, 2, 3)");
      ASSERT_TRUE(trial.ok()) << trial.status().message();
      pb::ParamSet p0 = Params(0.25), p1 = Params(0.5);
      trial->Bind(1, int64_t{11}).Bind(2, int64_t{0}).Bind(3, "completed");
      trial->Bind(4, ParamsToJson(p0.params())).BindBlob(5, p0.SerializeAsString());
      trial->Bind(6, 2).Bind(7, "r1").Bind(8, 0.125).Bind(9, int64_t{9});
      trial->Bind(10, "{\"value\": 0.125}");
      ASSERT_TRUE(trial->Run().ok());
      trial->Bind(1, int64_t{12}).Bind(2, int64_t{1}).Bind(3, "queued");
      trial->Bind(4, ParamsToJson(p1.params())).BindBlob(5, p1.SerializeAsString());
      trial->Bind(6, 0).BindNull(7).BindNull(8).BindNull(9).BindNull(10);
      ASSERT_TRUE(trial->Run().ok());
    }
    Exec(db,
         "INSERT INTO reports VALUES(11, 2, 9, 'value', 0.125, 3);"
         "INSERT INTO events(study_id, trial_id, at, kind, detail) "
         "VALUES(7, 11, 2.5, 'attempt_lost', 'runner r0 went silent');");
    if (l.version >= 2) {
      Exec(db, std::string("INSERT INTO checkpoints(trial_id, step, path, bytes, ") +
                   (l.crc32 ? "crc32" : "checksum") + ", at) VALUES(11, 9, '/ck/11', 64, 4242, 3)");
    }
    if (l.version >= 3) {
      Exec(db,
           "INSERT INTO decisions(trial_id, step, decision, reason, at) "
           "VALUES(11, 3, 'continue', 'top half at rung 0', 2)");
    }
    ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  }
};

TEST_P(MigrationTest, DataSurvivesAndTheSchemaIsCurrent) {
  const Layout& l = GetParam();
  ASSERT_NO_FATAL_FAILURE(WriteOld(l));
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Store* st = s->get();
    auto id = st->OpenStudy(study_);  // the same spec: the same study
    ASSERT_TRUE(id.ok()) << id.status().message();
    EXPECT_EQ(*id, 7);
    auto trials = st->LoadTrials(7);
    ASSERT_TRUE(trials.ok()) << trials.status().message();
    ASSERT_EQ(trials->size(), 2u);
    const TrialRecord& a = (*trials)[0];
    EXPECT_EQ(a.id, 11);
    EXPECT_EQ(a.number, 0);
    EXPECT_EQ(a.status, TrialStatus::kCompleted);
    EXPECT_EQ(a.attempts, 2);
    EXPECT_EQ(a.value, 0.125);
    EXPECT_EQ(a.step, 9);
    ASSERT_EQ(a.params.params_size(), 1);
    EXPECT_DOUBLE_EQ(a.params.params(0).value().number(), 0.25);
    EXPECT_EQ(a.parent_id, 0);
    EXPECT_EQ(a.checkpoint_path, l.version >= 2 ? "/ck/11" : "");
    EXPECT_EQ(a.checkpoint_step, l.version >= 2 ? 9 : 0);
    EXPECT_EQ(a.checkpoint_checksum, l.version >= 2 ? 4242u : 0u);
    EXPECT_EQ(a.decided_step, l.version >= 3 ? 3 : -1);
    const TrialRecord& b = (*trials)[1];
    EXPECT_EQ(b.id, 12);
    EXPECT_EQ(b.status, TrialStatus::kQueued);
    EXPECT_FALSE(b.value);
    auto metrics = st->TrialMetrics(11);
    ASSERT_TRUE(metrics.ok());
    EXPECT_EQ(*metrics, "{\"value\": 0.125}");
    auto h = st->LoadHistory(7, "value");
    ASSERT_TRUE(h.ok()) << h.status().message();
    // The report and the end. Migration 4 started checkpoint_history empty,
    // so a checkpoint committed before it is not in the history.
    EXPECT_EQ(h->size(), 2u);

    // Every write of the current schema works on the migrated database.
    ASSERT_TRUE(st->Begin().ok());
    pb::ParamSet p = Params(0.75);
    auto child = st->InsertTrial(7, 2, p, ParamsToJson(p.params()), 4.0, 11, 9);
    ASSERT_TRUE(child.ok()) << child.status().message();
    ASSERT_TRUE(st->MarkRunning(*child, "r2", 1, 1, 4.0).ok());
    ASSERT_TRUE(st->RecordCheckpoint(*child, 10, "/ck/c", 64, 99, 4.5).ok());
    ASSERT_TRUE(st->AddDecision(*child, 10, "pause", "end of rung", 4.5).ok());
    ASSERT_TRUE(st->Pause(*child, 1, 10, 0.1, true).ok());
    ASSERT_TRUE(st->Commit().ok());
  }
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto v = (*r)->Query("PRAGMA user_version");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(std::get<int64_t>(v->rows.at(0).at(0)), kSchemaVersion);
  auto t = (*r)->Trial(11);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->study.name, "s");
  EXPECT_EQ(t->params_json, "{\"x1\": 0.25}");
  EXPECT_FALSE(t->trial.parent);
  auto events = (*r)->Events(11);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].kind, "attempt_lost");
  auto decisions = (*r)->Decisions(11);
  ASSERT_TRUE(decisions.ok());
  EXPECT_EQ(decisions->size(), l.version >= 3 ? 1u : 0u);
  auto kids = (*r)->Children(11);
  ASSERT_TRUE(kids.ok()) << kids.status().message();
  ASSERT_EQ(kids->size(), 1u);
  EXPECT_EQ((*kids)[0].parent_step, 9);
}

// 0a0c653's version 2 named the checksum column `crc32`; 51c6c6b renamed it
// in place. Such a database can also sit at version 3 or 4: later builds
// committed the migrations before failing on the missing column.
INSTANTIATE_TEST_SUITE_P(EveryEarlierVersion, MigrationTest,
                         ::testing::Values(Layout{"v1", 1, false}, Layout{"v2crc32", 2, true},
                                           Layout{"v2", 2, false}, Layout{"v3crc32", 3, true},
                                           Layout{"v3", 3, false}),
                         PrintLayout);

// Version 6 adds trials.attempt_open: a trial paused under version 5 keeps
// its attempt open (a version-5 tuner took the count off when it resumed it).
TEST_F(StoreFixture, Version6OpensThePausedTrialsAttempts) {
  int64_t paused = 0, queued = 0;
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    auto id = (*s)->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    pb::ParamSet p = Params(0.5);
    ASSERT_TRUE((*s)->Begin().ok());
    paused = *(*s)->InsertTrial(*id, 0, p, ParamsToJson(p.params()), 1.0);
    queued = *(*s)->InsertTrial(*id, 1, p, ParamsToJson(p.params()), 1.0);
    ASSERT_TRUE((*s)->MarkRunning(paused, "r", 1, 2, 1.0).ok());
    ASSERT_TRUE((*s)->Pause(paused, 2, 3, 0.5, false).ok());  // as version 5 left it
    ASSERT_TRUE((*s)->Commit().ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db,
                   "ALTER TABLE trials DROP COLUMN attempt_open; ALTER TABLE studies DROP COLUMN "
                   "owner; ALTER TABLE studies DROP COLUMN priority; ALTER TABLE studies "
                   "DROP COLUMN max_runners; DROP TABLE service; DROP TABLE preempted_runs; DROP "
                   "TABLE launches; ALTER TABLE studies DROP COLUMN run_seconds; ALTER TABLE "
                   "studies DROP COLUMN study_file; ALTER TABLE studies DROP COLUMN note; DROP "
                   "TABLE study_tags; DROP TABLE trial_values; "
                   "PRAGMA user_version=5",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto id = (*s)->OpenStudy(study_);
  ASSERT_TRUE(id.ok());
  auto trials = (*s)->LoadTrials(*id);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  ASSERT_EQ(trials->size(), 2u);
  for (const TrialRecord& t : *trials) {
    EXPECT_EQ(t.attempt_open, t.id == paused) << t.id;
    if (t.id == paused) EXPECT_EQ(t.attempts, 2);
    if (t.id == queued) EXPECT_EQ(t.attempts, 0);
  }
}

TEST_F(StoreFixture, ADatabaseNewerThanThisSweepIsRefused) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, ("PRAGMA user_version=" + std::to_string(kSchemaVersion + 1)).c_str(),
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
  auto s = Store::Open(db_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("newer than this sweep"), std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace sweep
