// Per-attempt log files: appended in order, capped, never written through a
// symlink, in a folder that must be ours.
#include "storage/log_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e/harness.h"

namespace sweep {
namespace {

using e2e::FileBytes;
using e2e::TempDir;

TEST(LogFilesTest, AppendsUpToTheCapAndCountsTheRest) {
  TempDir dir;
  std::string logs = dir.File("db.logs");
  auto a = AppendLogFile(logs, 7, 2, "one\n");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->path, logs + "/trial-7.attempt-2.log");
  auto b = AppendLogFile(logs, 7, 2, "two\n");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(FileBytes(a->path), "one\ntwo\n");
  EXPECT_EQ(b->bytes, 8);
  struct stat st;
  ASSERT_EQ(stat(logs.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(a->path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string big(kMaxLogFileBytes, 'x');
  auto c = AppendLogFile(logs, 7, 2, big);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bytes, kMaxLogFileBytes);
  EXPECT_EQ(c->dropped, 8);
  auto d = AppendLogFile(logs, 7, 2, "more");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->dropped, 4);
}

TEST(LogFilesTest, RefusesSymlinksAndFoldersOpenToOthers) {
  TempDir dir;
  std::string logs = dir.File("db.logs");
  ASSERT_EQ(mkdir(logs.c_str(), 0700), 0);
  std::string victim = dir.Write("victim", "keep");
  ASSERT_EQ(symlink(victim.c_str(), LogFilePath(logs, 1, 1).c_str()), 0);
  EXPECT_FALSE(AppendLogFile(logs, 1, 1, "evil").ok());
  EXPECT_EQ(FileBytes(victim), "keep");
  ASSERT_EQ(chmod(logs.c_str(), 0777), 0);
  auto r = AppendLogFile(logs, 2, 1, "x");
  ASSERT_FALSE(r.ok());
}

}  // namespace
}  // namespace sweep
