// The one guard in front of files opened by path: what it refuses, with
// which code and words, and that a FIFO never blocks it.
#include "common/small_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e/harness.h"

namespace sweep {
namespace {

using e2e::TempDir;

TEST(SmallFileTest, ReadsAWholeFileWithinTheCap) {
  TempDir dir;
  auto text = ReadSmallFile(dir.Write("a", "four"), {.what = "thing", .max_bytes = 4});
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "four");
}

TEST(SmallFileTest, ALargerFileIsResourceExhaustedNamingTheCap) {
  TempDir dir;
  std::string path = dir.Write("a", "five!");
  auto text = ReadSmallFile(path, {.what = "thing", .max_bytes = 4});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(text.status().message(), path + ": thing is larger than 4 bytes");
}

TEST(SmallFileTest, AMissingFileIsNotFoundInTheCallersWords) {
  TempDir dir;
  auto text = ReadSmallFile(dir.File("none"), {.what = "thing"});
  ASSERT_FALSE(text.ok());
  EXPECT_TRUE(text.status().IsNotFound());
  EXPECT_EQ(text.status().message(),
            dir.File("none") + ": cannot open thing: No such file or directory");
}

TEST(SmallFileTest, SpecialFilesAreRefusedWithoutBlocking) {
  TempDir dir;
  std::string fifo = dir.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto text = ReadSmallFile(fifo, {.what = "thing"});
  ASSERT_FALSE(text.ok());
  EXPECT_TRUE(text.status().IsInvalidArgument());
  EXPECT_EQ(text.status().message(), fifo + ": a thing must be a regular file, this is a FIFO");
  auto folder = ReadSmallFile(dir.path(), {.what = "thing"});
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("this is a directory"), std::string::npos);
}

TEST(SmallFileTest, ASymlinkIsFollowedOnlyWhenAllowed) {
  TempDir dir;
  std::string target = dir.Write("target", "x");
  std::string link = dir.File("link");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_TRUE(ReadSmallFile(link, {.what = "thing"}).ok());
  auto refused = ReadSmallFile(link, {.what = "thing", .follow_symlinks = false});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("sweep does not follow a symbolic link here"),
            std::string::npos)
      << refused.status().message();
}

TEST(SmallFileTest, AFileMadeForAppendingIsTheUsersAlone) {
  TempDir dir;
  std::string path = dir.File("log");
  auto file = CheckedFile::Open(path, {.what = "log", .open_flags = O_WRONLY | O_APPEND | O_CREAT});
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->stat().st_mode & 0777, 0600u);
  EXPECT_EQ(write(file->fd(), "ab", 2), 2);
  EXPECT_TRUE(file->Close().ok());
  auto text = ReadSmallFile(path, {.what = "log"});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "ab");
}

}  // namespace
}  // namespace sweep
