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

TEST_F(LockTest, AskingWhoHoldsItNeitherTakesNorBlocksIt) {
  // `sweep studies`, `watch` and `stop` ask; a tuner starting meanwhile
  // must not fail, and a free database reads as free.
  auto none = DbLock::Holder(db_);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->has_value()) << "no file: nobody holds it";
  auto lock = DbLock::Acquire(db_);
  ASSERT_TRUE(lock.ok()) << lock.status().message();
  auto holder = DbLock::Holder(db_);
  ASSERT_TRUE(holder.ok()) << holder.status().message();
  ASSERT_TRUE(holder->has_value());
  EXPECT_EQ(**holder, getpid());
  *lock = DbLock();
  auto free = DbLock::Holder(db_);
  ASSERT_TRUE(free.ok()) << free.status().message();
  EXPECT_FALSE(free->has_value());
  auto again = DbLock::Acquire(db_);
  EXPECT_TRUE(again.ok()) << again.status().message();
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
  // The holder made the file; the refused Store wrote nothing to it.
  EXPECT_EQ(FileBytes(db_), "") << "a refused Store wrote to the database";
  EXPECT_FALSE(fs::exists(db_ + "-wal"));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  // The kernel dropped it with the process: nothing stale blocks anyone.
  auto s = Store::Open(db_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto holder = DbLock::Holder(db_);
  ASSERT_TRUE(holder.ok() && holder->has_value());
  EXPECT_EQ(**holder, getpid());
}

TEST_F(LockTest, AnotherNameForTheSameFileIsRefusedToo) {
  // The lock is the file's (its inode's), not its name's: a symbolic link
  // or a hard link to a held database is refused, naming the holder.
  auto first = Store::Open(db_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string sym = (dir_ / "alias-sym.db").string();
  const std::string hard = (dir_ / "alias-hard.db").string();
  fs::create_symlink(db_, sym);
  fs::create_hard_link(db_, hard);
  for (const std::string& alias : {sym, hard, (dir_ / "." / "r.db").string()}) {
    auto second = Store::Open(alias);
    ASSERT_FALSE(second.ok()) << alias;
    EXPECT_EQ(second.status().code(), StatusCode::kUnavailable) << alias;
    EXPECT_NE(second.status().message().find("(pid " + std::to_string(getpid()) + ","),
              std::string::npos)
        << second.status().message();
    auto holder = DbLock::Holder(alias);
    ASSERT_TRUE(holder.ok() && holder->has_value()) << alias;
    EXPECT_EQ(**holder, getpid());
  }
  EXPECT_FALSE(fs::exists(hard + "-wal")) << "the refused alias opened a journal of its own";
}

TEST_F(LockTest, AFolderAtTheDatabasesNameIsRefused) {
  fs::create_directory(db_);
  auto s = Store::Open(db_);
  ASSERT_FALSE(s.ok());
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
