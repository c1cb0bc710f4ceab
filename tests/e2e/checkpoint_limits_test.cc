// Checkpoint sizes and disk: resources.max_checkpoint_mb fails a trial whose
// checkpoint is too big (the tuner never stores it), the study's
// checkpoint_budget_mb removes checkpoints no decision needs and refuses
// what still does not fit, and `sweep gc` empties a finished study's
// checkpoints but its best trial's. Real sweeps of a shell program.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "e2e/command_helpers.h"

namespace sweep::e2e {
namespace {

// A command study ({{ and }} are braces in an argv template): each step writes `kb` KiB of state as
// its checkpoint (after sleeping `sleep` seconds) and reports loss = x.
std::string ShellStudy(const TempDir& dir, const std::string& name, int trials, int steps, int kb,
                       const std::string& sleep, const std::string& resources,
                       const std::string& algorithm_extra = "", const std::string& algorithm = "") {
  std::string script =
      "x=$1; s=1; while [ $s -le $SWEEP_STEPS ]; do sleep " + sleep +
      "; mkdir $SWEEP_CHECKPOINT_DIR/$s; head -c " + std::to_string(kb * 1024) +
      " /dev/zero > $SWEEP_CHECKPOINT_DIR/$s/state; echo \"SWEEP_REPORT {{\\\"step\\\": $s, "
      "\\\"loss\\\": $x, \\\"checkpoint\\\": true}}\"; s=$((s+1)); done";
  return dir.Write(name + ".yaml",
                   "name: " + name +
                       "\nobjective: {metric: loss, goal: minimize}\n"
                       "task:\n  command:\n    argv: [sh, -c, '" +
                       script + "', sh, \"{x}\"]\n    steps: " + std::to_string(steps) +
                       "\n    checkpoints: true\n"
                       "algorithm: " +
                       (algorithm.empty() ? "{type: random, max_trials: " + std::to_string(trials) +
                                                algorithm_extra + "}"
                                          : algorithm) +
                       "\nresources: " + resources +
                       "\nseed: 5\nparameters:\n  x: {type: float, min: 0, max: 1}\n");
}

// The checkpoint files in a study's folder (its logs are there too).
int64_t FolderBytes(const std::string& dir, int* files) {
  int64_t total = 0;
  *files = 0;
  DIR* d = opendir(dir.c_str());
  if (!d) return 0;
  while (dirent* e = readdir(d)) {
    struct stat st;
    std::string p = dir + "/" + e->d_name;
    if (p.find(".ckpt") == std::string::npos) continue;
    if (lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      total += st.st_size;
      ++*files;
    }
  }
  closedir(d);
  return total;
}

TEST(E2eCheckpointLimitsTest, ACheckpointOverTheCapFailsItsTrialAndIsNeverStored) {
  TempDir dir;
  std::string study =
      ShellStudy(dir, "big", 2, 2, 2048, "0", "{max_checkpoint_mb: 1, checkpoint_budget_mb: 8}");
  std::string db = dir.File("c.db"), out;
  out = RunStudy(study, db, 2, 1);  // no trial completed
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='failed' AND failure = 'its "
                     "checkpoint after step 1 is over the study''s resources.max_checkpoint_mb "
                     "(1)'"),
            2)
      << out << QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'");
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints"), 0);
  int files = 0;
  EXPECT_EQ(FolderBytes(StudyFolder(db, 1), &files), 0);

  // Under Hyperband step 1 is a decision step: the trial still fails (it is
  // not paused on a checkpoint that was never sent), and the oversized
  // step is not reported.
  std::string hb =
      ShellStudy(dir, "hb", 0, 3, 2048, "0", "{max_checkpoint_mb: 1, checkpoint_budget_mb: 8}", "",
                 "{type: hyperband, hyperband: {reduction_factor: 3}}");
  std::string hdb = dir.File("h.db");
  out = RunStudy(hb, hdb, 2, 1);
  int64_t trials = QueryInt(hdb, "SELECT count(*) FROM trials");
  EXPECT_GT(trials, 0) << out;
  EXPECT_EQ(QueryInt(hdb,
                     "SELECT count(*) FROM trials WHERE status='failed' AND failure = 'its "
                     "checkpoint after step 1 is over the study''s resources.max_checkpoint_mb "
                     "(1)'"),
            trials)
      << out;
  EXPECT_EQ(QueryInt(hdb, "SELECT count(*) FROM decisions WHERE decision='pause'"), 0);
  EXPECT_EQ(QueryInt(hdb, "SELECT count(*) FROM reports"), 0);
}

TEST(E2eCheckpointLimitsTest, TheBudgetRemovesWhatNoDecisionNeedsAndGcKeepsTheBest) {
  TempDir dir;
  // Six trials of 1 MiB checkpoints, two at a time, in a 3.5 MiB budget:
  // room for the two running and the best, so completed trials'
  // checkpoints give way, but the best one's, and none is refused.
  std::string study = ShellStudy(dir, "budget", 6, 2, 1024, "0",
                                 "{max_checkpoint_mb: 1.5, checkpoint_budget_mb: 3.5}");
  std::string db = dir.File("b.db"), out;
  out = RunStudy(study, db, 2, 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 6);
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM events WHERE kind='checkpoint_removed'"), 3) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='checkpoint_refused'"), 0) << out;
  int files = 0;
  int64_t bytes = FolderBytes(StudyFolder(db, 1), &files);
  EXPECT_LE(bytes, int64_t{7} << 19) << files << " files";  // 3.5 MiB
  EXPECT_EQ(files, QueryInt(db, "SELECT count(*) FROM checkpoints"));
  // The best trial's checkpoint is among those left.
  int64_t best = QueryInt(db, "SELECT id FROM trials ORDER BY value LIMIT 1");
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints WHERE trial_id=" + std::to_string(best)),
            1);
  int64_t history = QueryInt(db, "SELECT count(*) FROM checkpoint_history");

  // gc --dry-run says what would go and changes nothing.
  int64_t rows = QueryInt(db, "SELECT count(*) FROM checkpoints");
  ASSERT_EQ(RunSweep({"gc", "--db", db, "--dry-run"}, &out), 0) << out;
  EXPECT_NE(out.find("would remove the checkpoints of " + std::to_string(rows - 1) + " trials"),
            std::string::npos)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints"), rows);
  // gc keeps the best trial's model only.
  ASSERT_EQ(RunSweep({"gc", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("kept the best 1's"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints"), 1);
  EXPECT_EQ(QueryInt(db, "SELECT trial_id FROM checkpoints"), best);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoint_history"), history);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='checkpoints_collected'"), 1);
  FolderBytes(StudyFolder(db, 1), &files);
  EXPECT_EQ(files, 1);
  // --keep-best 0 removes that one too.
  ASSERT_EQ(RunSweep({"gc", "budget", "--db", db, "--keep-best", "0"}, &out), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints"), 0);
  FolderBytes(StudyFolder(db, 1), &files);
  EXPECT_EQ(files, 0);
}

TEST(E2eCheckpointLimitsTest, WhatStillDoesNotFitIsRefusedAndTheTrialsGoOn) {
  TempDir dir;
  // Hyperband on one runner: a trial paused at its rung keeps its 1 MiB
  // checkpoint (it may be promoted), so in a 1.5 MiB budget the next
  // trial's checkpoint cannot fit and is refused, and that trial goes on
  // without it. No timing involved.
  std::string study = dir.Write(
      "tight.yaml",
      "name: tight\nobjective: {metric: loss, goal: minimize}\ntask:\n  command:\n"
      "    argv: [sh, -c, 'x=$1; s=$SWEEP_RESUME_STEP; [ -z \"$s\" ] && s=0; s=$((s+1)); while "
      "[ $s -le $SWEEP_STEPS ]; do mkdir $SWEEP_CHECKPOINT_DIR/$s; head -c 1048576 /dev/zero > "
      "$SWEEP_CHECKPOINT_DIR/$s/state; echo \"SWEEP_REPORT {{\\\"step\\\": $s, \\\"loss\\\": "
      "$x, \\\"checkpoint\\\": true}}\"; s=$((s+1)); done', sh, \"{x}\"]\n"
      "    steps: 3\n    checkpoints: true\n"
      "algorithm: {type: hyperband, hyperband: {min_resource: 1, max_resource: 3, "
      "reduction_factor: 3}}\n"
      "resources: {max_checkpoint_mb: 1.2, checkpoint_budget_mb: 1.5}\nseed: 5\n"
      "parameters:\n  x: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("t.db");
  std::string out = RunStudy(study, db, 1, 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('completed', 'stopped')"),
            QueryInt(db, "SELECT count(*) FROM trials"));
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND step=3"), 1);
  EXPECT_GE(QueryInt(db,
                     "SELECT count(*) FROM events WHERE kind='checkpoint_refused' AND detail LIKE "
                     "'%would pass resources.checkpoint_budget_mb (1.5)'"),
            1)
      << out;
  int files = 0;
  EXPECT_LE(FolderBytes(StudyFolder(db, 1), &files), int64_t{3} << 19);
}

// Files a crash left (a checkpoint whose report never came) are removed when
// the study opens again; the committed ones stay.
TEST(E2eCheckpointLimitsTest, FilesNoRowNamesAreRemovedWhenTheStudyOpens) {
  TempDir dir;
  std::string study = ShellStudy(dir, "left", 2, 2, 16, "0", "{}");
  std::string db = dir.File("l.db"), out;
  out = RunStudy(study, db, 1, 0);
  int files = 0;
  FolderBytes(StudyFolder(db, 1), &files);
  ASSERT_EQ(files, 2);
  int64_t number =
      QueryInt(db, "SELECT min(number) FROM trials WHERE id IN (SELECT trial_id FROM checkpoints)");
  // Named by the trial's number in its study, in the study's folder.
  std::string orphan =
      dir.Write("l.sweep/study-1/trial-" + std::to_string(number) + "-step-7.ckpt", "junk");
  std::string other = dir.Write("l.sweep/study-1/trial-999-step-1.ckpt", "junk");  // no such trial
  ASSERT_EQ(orphan, StudyFolder(db, 1) + "/trial-" + std::to_string(number) + "-step-7.ckpt");
  out = RunStudy(study, db, 1, 0);
  struct stat st;
  EXPECT_NE(lstat(orphan.c_str(), &st), 0) << out;
  EXPECT_EQ(lstat(other.c_str(), &st), 0);
  FolderBytes(StudyFolder(db, 1), &files);
  EXPECT_EQ(files, 3);  // the two committed ones and the one of no trial
}

// gc leaves a study that may still resume alone.
TEST(E2eCheckpointLimitsTest, GcKeepsAnUnfinishedStudysCheckpoints) {
  TempDir dir;
  std::string study = ShellStudy(dir, "later", 3, 2, 64, "0", "{}", ", max_concurrent: 1");
  std::string db = dir.File("u.db"), out;
  out = RunStudy(study, db, 1, 0);
  // Make one trial look queued again, as a run cut short leaves it.
  ExecSql(db, "UPDATE trials SET status='queued' WHERE number=2");
  ASSERT_EQ(RunSweep({"gc", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("study 'later': kept its checkpoints: it has 1 queued, running or paused"),
            std::string::npos)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints"), 3);
}

}  // namespace
}  // namespace sweep::e2e
