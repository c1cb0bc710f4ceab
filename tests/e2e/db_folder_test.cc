// The folder a database keeps its files in (NAME.sweep/study-ID, files named
// by the trial's number in its study), and the layout before it
// (DB.checkpoints/, DB.logs/, named by trials.id), which real `sweep`
// processes still read and clean.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "e2e/command_helpers.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

namespace fs = std::filesystem;

int Files(const std::string& dir) {
  int n = 0;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

// A study of `trials` Python trials of 2 steps, each checkpointing, run to the end.
void RunCheckpointing(const TempDir& dir, const std::string& name, int trials,
                      const std::string& db) {
  RunStudy(PyStudy(dir, name, ", --checkpoint",
                   "{type: random, max_trials: " + std::to_string(trials) + "}", 2,
                   "    checkpoints: true\n"),
           db, 1);
}

TEST(E2eDbFolderTest, FilesGoInTheStudysFolderNamedByTrialNumber) {
  TempDir dir;
  std::string db = dir.File("r.db");
  RunCheckpointing(dir, "first", 2, db);
  RunCheckpointing(dir, "second", 2, db);
  // Beside r.db: SQLite's files and r.sweep/, nothing else of the database's.
  std::set<std::string> beside;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().filename().string().rfind("r.", 0) == 0) beside.insert(e.path().filename());
  EXPECT_EQ(beside, (std::set<std::string>{"r.db", "r.sweep"}));
  struct stat st;
  ASSERT_EQ(stat(dir.File("r.sweep").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  for (int64_t study : {1, 2}) {
    const std::string folder = StudyFolder(db, study);
    ASSERT_EQ(stat(folder.c_str(), &st), 0) << folder;
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    for (int number : {0, 1}) {
      const std::string n = std::to_string(number);
      EXPECT_TRUE(fs::exists(folder + "/trial-" + n + ".attempt-1.log")) << folder;
      EXPECT_TRUE(fs::exists(folder + "/trial-" + n + "-step-2.ckpt")) << folder;
    }
  }
  // `sweep logs second 1` is trial-1.attempt-1.log of the second study.
  std::ofstream(StudyFolder(db, 2) + "/trial-1.attempt-1.log", std::ios::app) << "a marker\n";
  std::string out;
  ASSERT_EQ(RunSweep({"logs", "second", "1", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("a marker"), std::string::npos) << out;
  // Deleting a study takes its folder; the other's stays.
  ASSERT_EQ(RunSweep({"delete", "first", "--db", db, "--yes"}, &out), 0) << out;
  EXPECT_FALSE(fs::exists(StudyFolder(db, 1)));
  EXPECT_EQ(Files(StudyFolder(db, 2)), 4);
}

// Two databases `x` and `x.db` would share x.sweep/: the second is refused
// before anything is written. A study that gets the id of a deleted one
// whose folder was left (a kill during `sweep delete`) starts clean.
TEST(E2eDbFolderTest, TwinDatabasesAreRefusedAndAReusedIdStartsClean) {
  TempDir dir;
  std::string db = dir.File("r.db"), out;
  RunCheckpointing(dir, "first", 1, db);
  RunCheckpointing(dir, "second", 1, db);
  EXPECT_EQ(RunSweep({"run", PyStudy(dir, "twin", "", "{type: random, max_trials: 1}", 1), "--db",
                      dir.File("r"), "--local-runners", "1"},
                     &out),
            1);
  EXPECT_NE(out.find(dir.File("r") + " and " + db +
                     " would keep their checkpoints and logs in the same folder"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir.File("r")));
  ASSERT_EQ(RunSweep({"delete", "second", "--db", db, "--yes"}, &out), 0) << out;
  ASSERT_FALSE(fs::exists(StudyFolder(db, 2)));
  // What a delete cut short leaves: the folder of id 2, with a log in it.
  fs::create_directory(StudyFolder(db, 2));
  fs::permissions(StudyFolder(db, 2), fs::perms::owner_all);
  std::ofstream(StudyFolder(db, 2) + "/trial-0.attempt-1.log") << "a deleted study's line\n";
  RunCheckpointing(dir, "third", 1, db);
  ASSERT_EQ(QueryInt(db, "SELECT id FROM studies WHERE name='third'"), 2);
  ASSERT_EQ(RunSweep({"logs", "third", "0", "--db", db}, &out), 0) << out;
  EXPECT_EQ(out.find("a deleted study's line"), std::string::npos) << out;
  EXPECT_NE(out.find("training step 1"), std::string::npos) << out;
}

// A database made before the study folders: its rows name files in
// DB.checkpoints/ and DB.logs/ by the trial's id. They are read where the
// rows say, collected by gc and removed with their study.
TEST(E2eDbFolderTest, AnOldLayoutIsStillReadAndCleaned) {
  TempDir dir;
  std::string db = dir.File("o.db");
  RunCheckpointing(dir, "old", 3, db);
  // Move every file to where a sweep of before would have put it.
  const std::string folder = StudyFolder(db, 1);
  fs::create_directory(db + ".checkpoints");
  fs::create_directory(db + ".logs");
  fs::permissions(db + ".checkpoints", fs::perms::owner_all);
  fs::permissions(db + ".logs", fs::perms::owner_all);
  for (const auto& r : Query(db, "SELECT id, number FROM trials")) {
    const std::string id = std::to_string(std::get<int64_t>(r[0]));
    const std::string n = std::to_string(std::get<int64_t>(r[1]));
    const std::string ckpt = db + ".checkpoints/trial-" + id + "-step-2.ckpt";
    const std::string log = db + ".logs/trial-" + id + ".attempt-1.log";
    fs::rename(folder + "/trial-" + n + "-step-2.ckpt", ckpt);
    fs::rename(folder + "/trial-" + n + ".attempt-1.log", log);
    ExecSql(db, "UPDATE checkpoints SET path='" + ckpt + "' WHERE trial_id=" + id);
    ExecSql(db, "UPDATE trial_logs SET path='" + log + "' WHERE trial_id=" + id);
  }
  fs::remove(folder);
  fs::remove(fs::path(folder).parent_path());
  const std::string first = std::to_string(QueryInt(db, "SELECT id FROM trials WHERE number=0"));
  std::ofstream(db + ".logs/trial-" + first + ".attempt-1.log", std::ios::app) << "old marker\n";
  std::string out;
  ASSERT_EQ(RunSweep({"logs", "old", "0", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("old marker"), std::string::npos) << out;
  // gc keeps the best trial's checkpoint, in the old folder as its row says.
  ASSERT_EQ(RunSweep({"gc", "--db", db, "--keep-best", "1"}, &out), 0) << out;
  EXPECT_NE(out.find("removed the checkpoints of 2 trials (2 files"), std::string::npos) << out;
  EXPECT_EQ(Files(db + ".checkpoints"), 1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints"), 1);
  ASSERT_EQ(RunSweep({"delete", "old", "--db", db, "--yes"}, &out), 0) << out;
  EXPECT_NE(out.find("4 files"), std::string::npos) << out;
  EXPECT_EQ(Files(db + ".checkpoints"), 0);
  EXPECT_EQ(Files(db + ".logs"), 0);
}

}  // namespace
}  // namespace sweep::e2e
