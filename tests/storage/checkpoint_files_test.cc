// The checkpoint folder and its files against another local user: a folder
// that others can write is refused, and symlinks planted at the temporary or
// the final name are replaced, never followed (issue 10, finding 3).
#include "storage/checkpoint_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sweep {
namespace {

namespace fs = std::filesystem;

class CheckpointFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sweep_ckpt_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    victim_ = (dir_ / "victim").string();
    std::ofstream(victim_) << "precious";
    chmod(victim_.c_str(), 0600);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Victim() const {
    std::ifstream in(victim_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static unsigned Mode(const std::string& p) {
    struct stat st;
    EXPECT_EQ(lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  }

  fs::path dir_;
  std::string victim_;
};

TEST_F(CheckpointFilesTest, TheFolderIsCreatedPrivate) {
  std::string ckpt = (dir_ / "db.checkpoints").string();
  auto path = WriteCheckpointFile(ckpt, 1, 2, "abc");
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(Mode(ckpt), 0700u);
  EXPECT_EQ(Mode(*path), 0600u);
}

TEST_F(CheckpointFilesTest, PlantedSymlinksLeaveTheVictimUnchanged) {
  std::string ckpt = (dir_ / "db.checkpoints").string();
  ASSERT_TRUE(CheckCheckpointDir(ckpt, true).ok());
  std::string final_name = ckpt + "/trial-1-step-2.ckpt";
  fs::create_symlink(victim_, final_name + ".tmp");
  fs::create_symlink(victim_, final_name);
  auto path = WriteCheckpointFile(ckpt, 1, 2, "checkpoint bytes");
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(Victim(), "precious");
  EXPECT_EQ(Mode(victim_), 0600u);
  EXPECT_FALSE(fs::is_symlink(final_name));
  EXPECT_FALSE(fs::exists(fs::symlink_status(final_name + ".tmp")));
  auto back = ReadCheckpointFile(*path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "checkpoint bytes");
}

TEST_F(CheckpointFilesTest, ASymlinkIsNeverReadAsACheckpoint) {
  std::string link = (dir_ / "trial-1-step-1.ckpt").string();
  fs::create_symlink(victim_, link);
  EXPECT_FALSE(ReadCheckpointFile(link).ok());
}

TEST_F(CheckpointFilesTest, AFolderOthersCanWriteIsRefused) {
  std::string ckpt = (dir_ / "db.checkpoints").string();
  fs::create_directories(ckpt);
  chmod(ckpt.c_str(), 0777);
  fs::create_symlink(victim_, ckpt + "/trial-1-step-2.ckpt.tmp");
  auto path = WriteCheckpointFile(ckpt, 1, 2, "abc");
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(path.status().message().find(ckpt), std::string::npos) << path.status().message();
  EXPECT_NE(path.status().message().find("writable by everyone (mode 0777)"), std::string::npos)
      << path.status().message();
  EXPECT_EQ(Victim(), "precious");
  chmod(ckpt.c_str(), 0770);
  auto group = CheckCheckpointDir(ckpt, false);
  EXPECT_NE(group.message().find("writable by its group"), std::string::npos) << group.message();
}

TEST_F(CheckpointFilesTest, ASymlinkedFolderIsRefused) {
  fs::create_directories(dir_ / "elsewhere");
  std::string ckpt = (dir_ / "db.checkpoints").string();
  fs::create_directory_symlink(dir_ / "elsewhere", ckpt);
  auto path = WriteCheckpointFile(ckpt, 1, 2, "abc");
  ASSERT_FALSE(path.ok());
  EXPECT_NE(path.status().message().find("is a symbolic link"), std::string::npos)
      << path.status().message();
  EXPECT_TRUE(fs::is_empty(dir_ / "elsewhere"));
}

TEST_F(CheckpointFilesTest, AFolderOwnedByAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give the folder to another user";
  std::string ckpt = (dir_ / "db.checkpoints").string();
  fs::create_directories(ckpt);
  chmod(ckpt.c_str(), 0700);
  ASSERT_EQ(chown(ckpt.c_str(), 65534, 65534), 0);
  auto st = CheckCheckpointDir(ckpt, true);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("is owned by uid 65534"), std::string::npos) << st.message();
  EXPECT_FALSE(WriteCheckpointFile(ckpt, 1, 2, "abc").ok());
}

}  // namespace
}  // namespace sweep
