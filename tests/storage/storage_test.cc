// The results database: durability across reopen, read-only queries, a reader
// running while the writer commits, migrations and study identity.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "common/posix_error.h"
#include "common/study_defaults.h"
#include "common/values.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "storage/checkpoint_files.h"
#include "storage/reader.h"
#include "storage/sqlite_store.h"
#include "storage/store_fixture.h"

namespace sweep {
namespace {

class StorageTest : public StoreFixture {
 protected:
  // Inserts and completes one trial in its own transaction.
  void AddTrial(Store* s, int64_t study, int64_t number, double value) {
    ASSERT_TRUE(s->Begin().ok());
    pb::ParamSet ps;
    auto* pv = ps.add_params();
    pv->set_name("x1");
    *pv->mutable_value() = NumberValue(value);
    auto id = s->InsertTrial(study, number, ps, ParamsToJson(ps.params()), 1.0);
    ASSERT_TRUE(id.ok()) << id.status().message();
    ASSERT_TRUE(s->MarkRunning(*id, "r", 1, 1, 1.0).ok());
    ASSERT_TRUE(s->InsertReport(*id, 1, 1, "value", value, 1.0).ok());
    ASSERT_TRUE(s->FinishTrial(*id, TrialStatus::kCompleted, value, 1, "{}", "", 2.0).ok());
    ASSERT_TRUE(s->Commit().ok());
  }
};

TEST_F(StorageTest, CommittedTrialsSurviveReopen) {
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    auto id = (*s)->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    for (int i = 0; i < 5; ++i) ASSERT_NO_FATAL_FAILURE(AddTrial(s->get(), *id, i, 0.1 * i));
    // An uncommitted transaction is lost with the connection.
    ASSERT_TRUE((*s)->Begin().ok());
    ASSERT_TRUE((*s)->SetStudyStatus(*id, StudyStatus::kCompleted, 3.0).ok());
  }
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto id = (*s)->OpenStudy(study_);
  ASSERT_TRUE(id.ok()) << id.status().message();
  auto trials = (*s)->LoadTrials(*id);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  ASSERT_EQ(trials->size(), 5u);
  EXPECT_EQ((*trials)[3].status, TrialStatus::kCompleted);
  ASSERT_TRUE((*trials)[3].value.has_value());
  EXPECT_DOUBLE_EQ(*(*trials)[3].value, 0.3);
  ASSERT_EQ((*trials)[3].params.params_size(), 1);
  EXPECT_EQ((*trials)[3].params.params(0).name(), "x1");
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto t = (*r)->Query("SELECT status FROM studies");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(t->rows[0][0]), "running");
  auto v = (*r)->Query("PRAGMA user_version");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(v->rows[0][0]), kSchemaVersion);
}

TEST_F(StorageTest, ClosingTheStoreMergesTheWal) {
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    auto id = (*s)->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    ASSERT_NO_FATAL_FAILURE(AddTrial(s->get(), *id, 0, 1.0));
    // Run every kind of prepared statement, the pause and checkpoint-history
    // ones included: each must be finalized before the connection closes.
    ASSERT_TRUE((*s)->Begin().ok());
    pb::ParamSet ps;
    auto t = (*s)->InsertTrial(*id, 1, ps, "{}", 1.0);
    ASSERT_TRUE(t.ok()) << t.status().message();
    ASSERT_TRUE((*s)->MarkRunning(*t, "r", 2, 1, 1.0).ok());
    ASSERT_TRUE((*s)->RecordCheckpoint(*t, 1, "/tmp/c.ckpt", 10, 7, 1.0).ok());
    ASSERT_TRUE((*s)->Pause(*t, 1, 1, 0.5, true).ok());
    ASSERT_TRUE((*s)->Requeue(*t, 1, true).ok());
    ASSERT_TRUE((*s)->SetProgress(*t, 1, 0.5).ok());
    ASSERT_TRUE((*s)->AddEvent(*id, *t, "k", "d", 1.0).ok());
    ASSERT_TRUE((*s)->AddDecision(*t, 1, "continue", "", 1.0).ok());
    ASSERT_TRUE((*s)->SetStudyStatus(*id, StudyStatus::kCompleted, 1.0).ok());
    ASSERT_TRUE((*s)->Commit().ok());
    ASSERT_TRUE(std::filesystem::exists(db_ + "-wal"));
  }
  // The last connection to close checkpoints the WAL into the database and
  // deletes it; a connection left open (a statement not finalized) keeps it.
  EXPECT_FALSE(std::filesystem::exists(db_ + "-wal"));
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto q = (*r)->Query("SELECT status FROM trials ORDER BY number");
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_EQ(q->rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(q->rows[1][0]), "queued");
}

TEST_F(StorageTest, AConnectionWithAnOpenStatementDoesNotCloseAndSaysWhy) {
  auto c = Connection::Open(db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto s = Stmt::Prepare(c->get(), "SELECT 42");
  ASSERT_TRUE(s.ok()) << s.status().message();
  Status st = c->Close();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("closing database " + db_), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("statements still open: SELECT 42"), std::string::npos)
      << st.message();
  *s = Stmt();
  EXPECT_TRUE(c->Close().ok());
  EXPECT_EQ(c->get(), nullptr);
}

TEST_F(StorageTest, ReaderRefusesWritesAndChangesNothing) {
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    auto id = (*s)->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    ASSERT_NO_FATAL_FAILURE(AddTrial(s->get(), *id, 0, 1.5));
  }
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const char* sql : {"DELETE FROM trials", "UPDATE trials SET value = 0", "DROP TABLE trials",
                          "INSERT INTO events(study_id, at, kind, detail) VALUES(1, 0, 'x', 'y')",
                          "SELECT 1; DELETE FROM trials"}) {
    auto q = (*r)->Query(sql);
    EXPECT_FALSE(q.ok()) << sql;
  }
  auto q = (*r)->Query("SELECT count(*), sum(value) FROM trials");
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_EQ(q->rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(q->rows[0][0]), 1);
  EXPECT_DOUBLE_EQ(std::get<double>(q->rows[0][1]), 1.5);
  EXPECT_FALSE(Reader::Open((dir_ / "missing.db").string()).ok());
}

TEST_F(StorageTest, ReaderReportsCorruptParameters) {
  StudyRef ref;
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    auto id = (*s)->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    ASSERT_NO_FATAL_FAILURE(AddTrial(s->get(), *id, 0, 1.5));
    ASSERT_NO_FATAL_FAILURE(AddTrial(s->get(), *id, 1, 2.5));
    ref.id = *id;
  }
  {
    auto r = Reader::Open(db_);
    ASSERT_TRUE(r.ok()) << r.status().message();
    auto trials = (*r)->Trials(ref, std::nullopt, 0);
    ASSERT_TRUE(trials.ok()) << trials.status().message();
    ASSERT_EQ(trials->size(), 2u);
    ASSERT_EQ((*trials)[1].params.params_size(), 1);
  }
  // Plain SQLite, as a bad disk or a stray tool would: a truncated varint is
  // not a ParamSet.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  int64_t bad_id = 0;
  {
    ASSERT_EQ(sqlite3_exec(raw, "UPDATE trials SET params_pb = x'0aff' WHERE number = 1", nullptr,
                           nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(raw);
    ASSERT_EQ(sqlite3_changes(raw), 1);
    auto q = Stmt::Prepare(raw, "SELECT id FROM trials WHERE number = 1");
    ASSERT_TRUE(q.ok()) << q.status().message();
    auto row = q->Step();
    ASSERT_TRUE(row.ok() && *row);
    bad_id = q->Int(0);
  }
  ASSERT_EQ(sqlite3_close(raw), SQLITE_OK);
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto trials = (*r)->Trials(ref, std::nullopt, 0);
  ASSERT_FALSE(trials.ok()) << "corrupt params_pb read as " << (*trials)[1].params.params_size()
                            << " parameters";
  EXPECT_TRUE(trials.status().IsCorruption());
  const std::string& msg = trials.status().message();
  EXPECT_NE(msg.find("trial " + std::to_string(bad_id)), std::string::npos) << msg;
  EXPECT_NE(msg.find("params_pb"), std::string::npos) << msg;
  EXPECT_NE(msg.find("corrupt"), std::string::npos) << msg;
}

TEST_F(StorageTest, ReaderRunsWhileWriterCommits) {
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto id = (*s)->OpenStudy(study_);
  ASSERT_TRUE(id.ok()) << id.status().message();
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, errors{0};
  std::atomic<int64_t> last_seen{0};
  std::thread reader([&] {
    auto r = Reader::Open(db_);
    if (!r.ok()) {
      errors++;
      return;
    }
    while (!stop) {
      auto q = (*r)->Query("SELECT count(*) FROM trials");
      if (!q.ok() || q->rows.size() != 1) {
        errors++;
        continue;
      }
      int64_t n = std::get<int64_t>(q->rows[0][0]);
      if (n < last_seen) errors++;  // counts never go backwards
      last_seen = n;
      reads++;
    }
  });
  for (int i = 0; i < 300; ++i) AddTrial(s->get(), *id, i, i);
  // Let the reader observe the final state.
  while (last_seen < 300 && errors == 0) std::this_thread::yield();
  stop = true;
  reader.join();
  EXPECT_EQ(errors, 0);
  EXPECT_GT(reads, 0);
  EXPECT_EQ(last_seen, 300);
}

TEST_F(StorageTest, ADifferentStudyUnderTheSameNameIsRefused) {
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE((*s)->OpenStudy(study_).ok());
  EXPECT_TRUE((*s)->OpenStudy(study_).ok());  // same spec: resume
  pb::Study changed = study_;
  changed.mutable_algorithm()->set_max_trials(11);
  auto r = (*s)->OpenStudy(changed);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("max_trials"), std::string::npos) << r.status().message();
}

TEST_F(StorageTest, AStudyStoredWithoutDefaultsResumesWithThemResolved) {
  // Earlier versions stored the study as parsed; this one stores it with its
  // defaults written in (ValidateStudy). Both are one definition.
  pb::Study parsed = study_;
  parsed.mutable_algorithm()->clear_max_retries();
  parsed.mutable_task()->clear_stall_timeout_s();
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto first = (*s)->OpenStudy(parsed);
  ASSERT_TRUE(first.ok()) << first.status().message();
  pb::Study resolved = parsed;
  ResolveDefaults(&resolved);
  ASSERT_TRUE(resolved.algorithm().has_max_retries());
  auto again = (*s)->OpenStudy(resolved);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, *first);
  // A real change is still refused.
  resolved.mutable_algorithm()->set_max_retries(5);
  EXPECT_FALSE((*s)->OpenStudy(resolved).ok());
}

TEST_F(StorageTest, AFullDatabaseFailsTheCommitAndKeepsEarlierResults) {
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto id = (*s)->OpenStudy(study_);
  ASSERT_TRUE(id.ok()) << id.status().message();
  ASSERT_NO_FATAL_FAILURE(AddTrial(s->get(), *id, 0, 1.0));
  // Cap the file at its current size: the next big write hits SQLITE_FULL.
  auto pages = Reader::Open(db_);
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  auto pc = (*pages)->Query("PRAGMA page_count");
  ASSERT_TRUE(pc.ok()) << pc.status().message();
  ASSERT_EQ(pc->rows.size(), 1u);
  int64_t n = std::get<int64_t>(pc->rows[0][0]);
  ASSERT_TRUE(Exec((*s)->db(), "PRAGMA max_page_count = " + std::to_string(n)).ok());
  ASSERT_TRUE((*s)->Begin().ok());
  Status st;
  for (int i = 0; i < 2000 && st.ok(); ++i) {
    st = (*s)->AddEvent(*id, 0, "filler", std::string(1000, 'x'), 1.0);
  }
  if (st.ok()) st = (*s)->Commit();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("full"), std::string::npos) << st.message();
  (*s)->Rollback();
  auto trials = (*s)->LoadTrials(*id);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  EXPECT_EQ(trials->size(), 1u);
}

TEST(PosixErrorTest, NamesTheCallThePathAndTheReason) {
  EXPECT_EQ(PosixError("write", "/d/f.tmp", ENOSPC).message(),
            "write /d/f.tmp: " + std::string(std::strerror(ENOSPC)) + " (disk full)");
  EXPECT_EQ(PosixError("open", "/d/f.tmp", ENOENT).message(),
            "open /d/f.tmp: " + std::string(std::strerror(ENOENT)));
}

TEST_F(StorageTest, CheckpointFileRoundTrips) {
  std::string dir = (dir_ / "ckpt").string();
  auto path = WriteCheckpointFile(dir, 3, 4, "abc");
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(*path, dir + "/trial-3-step-4.ckpt");
  EXPECT_FALSE(std::filesystem::exists(*path + ".tmp"));
  auto data = ReadCheckpointFile(*path);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(*data, "abc");
  auto missing = ReadCheckpointFile(dir + "/none.ckpt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "open checkpoint " + dir + "/none.ckpt: " + std::strerror(ENOENT));
}

TEST_F(StorageTest, ACheckpointWriteDoesNotFollowALinkAtTheTemporaryName) {
  // This test used to make every write fail by linking the temporary name to
  // /dev/full; the link is now replaced by a fresh file instead (issue 10),
  // so the disk-full message is covered by PosixErrorTest above.
  std::string dir = (dir_ / "ckpt").string();
  std::filesystem::create_directories(dir);
  std::string tmp = dir + "/trial-3-step-4.ckpt.tmp";
  std::filesystem::create_symlink("/dev/full", tmp);
  auto path = WriteCheckpointFile(dir, 3, 4, std::string(4096, 'x'));
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(tmp)));
  EXPECT_EQ(std::filesystem::file_size(*path), 4096u);
}

TEST_F(StorageTest, ACheckpointThatCannotBeOpenedOrRenamedNamesTheCallAndPath) {
  std::string dir = (dir_ / "ckpt").string();
  // The temporary file's name is taken by a directory: it cannot be removed.
  std::filesystem::create_directories(dir + "/trial-1-step-1.ckpt.tmp");
  auto open = WriteCheckpointFile(dir, 1, 1, "abc");
  ASSERT_FALSE(open.ok());
  EXPECT_TRUE(open.status().IsIOError());
  EXPECT_EQ(open.status().message(),
            "unlink stale " + dir + "/trial-1-step-1.ckpt.tmp: " + std::strerror(EISDIR));
  // The final name is a directory: rename fails, and the temporary file goes.
  std::filesystem::create_directories(dir + "/trial-2-step-1.ckpt/x");
  auto rename = WriteCheckpointFile(dir, 2, 1, "abc");
  ASSERT_FALSE(rename.ok());
  EXPECT_EQ(rename.status().message(), "rename " + dir + "/trial-2-step-1.ckpt.tmp to " + dir +
                                           "/trial-2-step-1.ckpt: " + std::strerror(EISDIR));
  EXPECT_FALSE(std::filesystem::exists(dir + "/trial-2-step-1.ckpt.tmp"));
}

}  // namespace
}  // namespace sweep
