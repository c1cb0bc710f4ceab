// The one-writer lock and the checks made before anything is written
// (issue 10, findings 4 and 8): a database another Store holds is refused
// with the holder's pid; the lock dies with its process; readers ignore it;
// a foreign or newer database is refused unchanged, by writers and readers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "e2e/harness.h"
#include "storage/db_lock.h"
#include "storage/reader.h"
#include "storage/store_fixture.h"

namespace sweep {
namespace {

namespace fs = std::filesystem;
using e2e::ExecSql;
using e2e::FileBytes;

using LockTest = StoreFixture;

TEST_F(LockTest, ASecondStoreIsRefusedWithTheHoldersPid) {
  auto first = Store::Open(db_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto second = Store::Open(db_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("in use by another sweep run (pid " +
                                           std::to_string(getpid()) + ","),
            std::string::npos)
      << second.status().message();
  // Readers never take the lock.
  auto reader = Reader::Open(db_);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  first->reset();
  auto again = Store::Open(db_);
  ASSERT_TRUE(again.ok()) << again.status().message();
}

TEST_F(LockTest, APeekAtTheHolderDoesNotMakeAStartingTunerFail) {
  // `sweep studies` and the dashboard learn who holds the lock by taking it
  // shared for a moment; a tuner that starts in that moment must wait it out.
  { std::ofstream(db_ + ".lock") << ""; }
  int fd = open((db_ + ".lock").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_SH | LOCK_NB), 0);
  std::thread release([fd] {
    usleep(20000);
    close(fd);
  });
  auto lock = DbLock::Acquire(db_);
  release.join();
  EXPECT_TRUE(lock.ok()) << lock.status().message();
}

TEST_F(LockTest, TheLockDiesWithItsProcess) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = DbLock::Acquire(db_);
    char c = lock.ok() ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    while (true) pause();
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  ASSERT_EQ(c, 'y');
  auto refused = Store::Open(db_);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("(pid " + std::to_string(child) + ","),
            std::string::npos)
      << refused.status().message();
  EXPECT_FALSE(fs::exists(db_)) << "a refused Store created the database";
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  // The lock file stays, but no longer blocks anyone.
  ASSERT_TRUE(fs::exists(db_ + ".lock"));
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(FileBytes(db_ + ".lock"), std::to_string(getpid()) + "\n");
}

TEST_F(LockTest, ASymlinkAtTheLockNameIsRefused) {
  std::string victim = (dir_ / "victim").string();
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, db_ + ".lock");
  auto s = Store::Open(db_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("symbolic link"), std::string::npos) << s.status().message();
  EXPECT_EQ(FileBytes(victim), "precious");
}

TEST_F(LockTest, AForeignDatabaseIsRefusedBeforeAnythingIsWritten) {
  ExecSql(db_, "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES('keep')");
  std::string before = FileBytes(db_);
  auto s = Store::Open(db_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.status().message().rfind(db_ + ": not a sweep results database", 0), 0u)
      << s.status().message();
  EXPECT_EQ(FileBytes(db_), before);
  EXPECT_FALSE(fs::exists(db_ + "-wal"));
  auto r = Reader::Open(db_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a sweep results database"), std::string::npos);
}

TEST_F(LockTest, ANewerSchemaIsRefusedBeforeTheSwitchToWal) {
  ExecSql(db_, "CREATE TABLE studies(id INTEGER PRIMARY KEY); PRAGMA user_version=" +
                   std::to_string(kSchemaVersion + 1));
  std::string before = FileBytes(db_);
  auto s = Store::Open(db_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("is newer than this sweep"), std::string::npos)
      << s.status().message();
  EXPECT_EQ(FileBytes(db_), before);
  EXPECT_FALSE(fs::exists(db_ + "-wal"));
  auto r = Reader::Open(db_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is newer than this sweep"), std::string::npos)
      << r.status().message();
}

TEST_F(LockTest, ReadersRefuseAnOlderSchemaTheyCannotRead) {
  ExecSql(db_, "CREATE TABLE studies(id INTEGER PRIMARY KEY); PRAGMA user_version=1");
  auto r = Reader::Open(db_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("schema version 1 is older than this sweep's"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace sweep
