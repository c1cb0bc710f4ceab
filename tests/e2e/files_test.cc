// Real `sweep` processes against the database file (issue 10, findings 4 and
// 8): a second tuner on the same database is refused and changes nothing; a
// tuner killed with SIGKILL leaves no lock behind; a file that is not a sweep
// database, or one with a newer schema, is refused before anything is
// written to it, by `run` and by the read commands.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

namespace fs = std::filesystem;

const char* kStudy =
    "name: locked\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: curve, steps: 10, step_ms: 60}}\n"
    "algorithm: {type: random, max_trials: 6, max_concurrent: 1}\nseed: 3\nparameters:\n"
    "  x1: {type: float, min: 0, max: 1}\n";

TEST(E2eFilesTest, ASecondTunerIsRefusedAndChangesNothingAndSigkillLeavesNoLock) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", kStudy);
  std::string db = dir.File("r.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "1",   "--progress", "plain"};
  Process first(args, dir.File("first.log"));
  ASSERT_TRUE(WaitFor(
      [&] {
        return QueryInt(db, "SELECT count(*) FROM trials WHERE status='running' AND step >= 1") >=
               1;
      },
      30000))
      << first.Log();
  // Read-only commands work while the tuner holds the lock.
  std::string out;
  EXPECT_EQ(RunSweep({"trials", "--db", db}, &out), 0) << out;
  // Frozen, the first tuner writes nothing while the second one tries.
  first.Signal(SIGSTOP);
  std::string before = FileBytes(db), before_wal = FileBytes(db + "-wal");
  int rc = RunSweep({"run", study, "--db", db, "--local-runners", "1", "--progress", "plain"}, &out,
                    30000);
  std::string after = FileBytes(db), after_wal = FileBytes(db + "-wal");
  first.Signal(SIGCONT);
  EXPECT_NE(rc, 0) << out;
  EXPECT_NE(out.find("in use by another sweep run (pid " + std::to_string(first.pid()) + ","),
            std::string::npos)
      << out;
  // Said before any runner of the second one started.
  EXPECT_EQ(out.find("runner local-"), std::string::npos) << out;
  EXPECT_TRUE(before == after) << "the second tuner changed " << db;
  EXPECT_TRUE(before_wal == after_wal) << "the second tuner changed " << db << "-wal";
  // The same file under other names (issue 41): a symbolic link and a hard
  // link are refused too, and change nothing.
  const std::string sym = dir.File("alias-sym.db"), hard = dir.File("alias-hard.db");
  fs::create_symlink(db, sym);
  fs::create_hard_link(db, hard);
  for (const std::string& alias : {sym, hard}) {
    first.Signal(SIGSTOP);
    before = FileBytes(db);
    before_wal = FileBytes(db + "-wal");
    rc = RunSweep({"run", study, "--db", alias, "--local-runners", "1", "--progress", "plain"},
                  &out, 30000);
    after = FileBytes(db);
    after_wal = FileBytes(db + "-wal");
    first.Signal(SIGCONT);
    EXPECT_NE(rc, 0) << out;
    EXPECT_NE(out.find("in use by another sweep run (pid " + std::to_string(first.pid()) + ","),
              std::string::npos)
        << alias << ": " << out;
    EXPECT_TRUE(before == after && before_wal == after_wal) << "the run on " << alias << " wrote";
    EXPECT_FALSE(fs::exists(alias + "-wal")) << alias;
  }
  fs::remove(sym);
  fs::remove(hard);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind LIKE '%interrupt%'"), 0);
  // SIGKILL: the kernel drops the lock, so the same command resumes.
  first.Signal(SIGKILL);
  first.Wait(10000);
  rc = RunSweep(args, &out, 120000);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("in use by another sweep run"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 6);
}

TEST(E2eFilesTest, AFileThatIsNotASweepDatabaseIsRefusedUnchanged) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", kStudy);
  std::string other = dir.File("notes.db");
  ExecSql(other,
          "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes(text) "
          "VALUES('keep me')");
  std::string newer = dir.File("newer.db");
  ExecSql(newer, "CREATE TABLE studies(id INTEGER PRIMARY KEY); PRAGMA user_version=99");
  std::string text = dir.Write("text.db", "this is not a database at all, just words\n");
  for (const std::string& f : {other, newer, text}) {
    std::string before = FileBytes(f);
    std::string out;
    int rc = RunSweep({"run", study, "--db", f, "--local-runners", "0", "--progress", "plain"},
                      &out, 30000);
    EXPECT_NE(rc, 0) << out;
    EXPECT_NE(out.find(f + ": "), std::string::npos) << out;
    std::string want =
        f == newer ? "schema version 99 is newer than this sweep" : "not a sweep results database";
    EXPECT_NE(out.find(want), std::string::npos) << out;
    EXPECT_TRUE(FileBytes(f) == before) << f << " was changed";
    EXPECT_FALSE(fs::exists(f + "-wal")) << f;
    EXPECT_FALSE(fs::exists(fs::path(StudyFolder(f, 1)).parent_path())) << f;
    // The read commands check the same way.
    for (const char* cmd : {"trials", "studies", "best"}) {
      rc = RunSweep({cmd, "--db", f}, &out, 30000);
      EXPECT_NE(rc, 0) << cmd << " " << f << ": " << out;
      EXPECT_NE(out.find(want), std::string::npos) << cmd << ": " << out;
    }
    EXPECT_TRUE(FileBytes(f) == before) << f << " was changed by a read command";
  }
}

// The files a database has beside it, as a person may find them: a link
// where SQLite keeps its write-ahead log, a database folder that is a link.
// Each is named with what is wrong, not SQLite's "unable to open database
// file" or a "checkpoint folder" that is not one.
TEST(E2eFilesTest, SideFilesThatAreLinksAreNamedForWhatTheyAre) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", kStudy), db = dir.File("s.db"), out;
  fs::create_symlink(dir.File("elsewhere"), db + "-wal");
  EXPECT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "1"}, &out, 30000), 1);
  EXPECT_NE(out.find(db + "-wal is a symbolic link: SQLite keeps the database's wal file there"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir.File("elsewhere")));
  fs::remove(db + "-wal");
  fs::create_directory(dir.File("elsewhere"));
  fs::create_directory_symlink(dir.File("elsewhere"), dir.File("s.sweep"));
  EXPECT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "1"}, &out, 30000), 1);
  EXPECT_NE(out.find("database folder " + dir.File("s.sweep") + " is a symbolic link"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("checkpoint folder"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
