// Packing command checkpoint folders: files and sub-folders round-trip;
// symlinks, special files, unsafe paths and oversized folders are refused.
#include "trial_runner/checkpoint_folder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "e2e/harness.h"
#include "proto/sweep.pb.h"

namespace sweep {
namespace {

using e2e::FileBytes;
using e2e::TempDir;

TEST(CheckpointFolderTest, FilesAndFoldersRoundTrip) {
  TempDir dir;
  std::string src = dir.File("src"), dst = dir.File("dst");
  ASSERT_EQ(mkdir(src.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((src + "/sub").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((src + "/empty").c_str(), 0700), 0);
  std::string binary("\0\x01\xff state", 9);
  std::ofstream(src + "/model.bin", std::ios::binary) << binary;
  std::ofstream(src + "/sub/run.sh") << "#!/bin/sh\n";
  chmod((src + "/sub/run.sh").c_str(), 0755);
  auto bytes = PackFolder(src, 1 << 20);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  ASSERT_EQ(mkdir(dst.c_str(), 0700), 0);
  ASSERT_TRUE(UnpackFolder(*bytes, dst).ok());
  EXPECT_EQ(FileBytes(dst + "/model.bin"), binary);
  EXPECT_EQ(FileBytes(dst + "/sub/run.sh"), "#!/bin/sh\n");
  struct stat empty;
  ASSERT_EQ(lstat((dst + "/empty").c_str(), &empty), 0) << "an empty folder is kept";
  EXPECT_TRUE(S_ISDIR(empty.st_mode));
  struct stat st;
  ASSERT_EQ(stat((dst + "/sub/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((dst + "/model.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  RemoveTree(src);
  EXPECT_NE(access(src.c_str(), F_OK), 0);
}

TEST(CheckpointFolderTest, SymlinksAndSpecialFilesAreRefusedNotFollowed) {
  TempDir dir;
  std::string src = dir.File("src");
  ASSERT_EQ(mkdir(src.c_str(), 0700), 0);
  std::ofstream(dir.File("secret")) << "secret";
  ASSERT_EQ(symlink(dir.File("secret").c_str(), (src + "/link").c_str()), 0);
  auto bytes = PackFolder(src, 1 << 20);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("a symlink"), std::string::npos);
  unlink((src + "/link").c_str());
  ASSERT_EQ(mkfifo((src + "/fifo").c_str(), 0600), 0);
  EXPECT_FALSE(PackFolder(src, 1 << 20).ok());
  // The folder itself a symlink: refused too.
  ASSERT_EQ(symlink(dir.path().c_str(), dir.File("alias").c_str()), 0);
  EXPECT_FALSE(PackFolder(dir.File("alias"), 1 << 20).ok());
}

TEST(CheckpointFolderTest, SizeCapAndUnsafePaths) {
  TempDir dir;
  std::string src = dir.File("src");
  ASSERT_EQ(mkdir(src.c_str(), 0700), 0);
  std::ofstream(src + "/big") << std::string(4096, 'x');
  auto bytes = PackFolder(src, 1000);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("the cap"), std::string::npos);
  for (const char* path : {"../escape", "/etc/passwd", "a/../../b", "", "a//b"}) {
    pb::CheckpointFolder f;
    f.add_files()->set_path(path);
    std::string dst = dir.File("dst");
    RemoveTree(dst);
    ASSERT_EQ(mkdir(dst.c_str(), 0700), 0);
    Status st = UnpackFolder(f.SerializeAsString(), dst);
    EXPECT_FALSE(st.ok()) << path;
  }
  EXPECT_NE(access(dir.File("escape").c_str(), F_OK), 0);
  // A planted symlink in the target is not written through.
  std::string dst = dir.File("dst2");
  ASSERT_EQ(mkdir(dst.c_str(), 0700), 0);
  std::ofstream(dir.File("victim")) << "keep";
  ASSERT_EQ(symlink(dir.File("victim").c_str(), (dst + "/f").c_str()), 0);
  pb::CheckpointFolder f;
  auto* file = f.add_files();
  file->set_path("f");
  file->set_data("overwritten");
  EXPECT_FALSE(UnpackFolder(f.SerializeAsString(), dst).ok());
  EXPECT_EQ(FileBytes(dir.File("victim")), "keep");
  EXPECT_FALSE(UnpackFolder("not a proto \xff\xff", dst).ok());
}

}  // namespace
}  // namespace sweep
