// model: gbdt through the train task: XGBoost's trees, opened as a module,
// on CSV tables; reports per step, a booster checkpoint at each, and a
// resume that grows the trees an uninterrupted trial grows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/rng.h"
#include "trial_runner/step_recorder.h"
#include "trial_runner/train_task.h"

namespace sweep {
namespace {

using Recorder = StepRecorder;

struct CsvFolder {
  std::string dir = "/tmp/sweep_tree_task_test_" + std::to_string(getpid());
  CsvFolder() { std::filesystem::create_directories(dir); }
  ~CsvFolder() { std::filesystem::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  }
};

// y = 3 x1 - 2 x2 + (1 if red); `classes` > 0: y cut into that many bands.
std::string Table(int rows, int classes, uint64_t seed = 5) {
  std::string out = "x1,colour,x2,y\n";
  Rng rng(seed);
  for (int i = 0; i < rows; ++i) {
    double x1 = rng.Uniform() * 4 - 2, x2 = rng.Uniform() * 4 - 2;
    bool red = rng.Next() & 1;
    double y = 3 * x1 - 2 * x2 + (red ? 1 : 0);
    std::string label = std::to_string(y);
    if (classes > 0)
      label = "c" + std::to_string(std::clamp(int((y + 11) / 22 * classes), 0, classes - 1));
    out += std::to_string(x1) + "," + (red ? "red" : "blue") + "," + std::to_string(x2) + "," +
           label + "\n";
  }
  return out;
}

pb::Assign TreeAssign(const std::string& train, int epochs, int rounds) {
  pb::Assign a;
  a.set_seed(3);
  pb::TrainTask* t = a.mutable_task()->mutable_train();
  t->set_model("gbdt");
  t->set_epochs(epochs);
  t->set_rounds(rounds);
  t->set_threads(2);
  t->mutable_data()->mutable_csv()->set_train(train);
  t->mutable_data()->mutable_csv()->set_label("y");
  return a;
}

double Get(const TaskResult& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name() == name) return m.value();
  return std::nan("");
}

TEST(TreeTaskTest, RegressionReportsEachStepAndFitsTheTable) {
  CsvFolder f;
  pb::Assign a = TreeAssign(f.Write("lin.csv", Table(2000, 0)), 5, 200);
  a.mutable_task()->mutable_train()->set_problem("regression");
  Recorder ctx;
  TaskResult r = RunTask(a, &ctx);
  ASSERT_EQ(r.outcome, pb::TRIAL_OUTCOME_COMPLETED) << r.error;
  EXPECT_EQ(ctx.steps, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ctx.checkpoints.size(), 5u);
  for (const char* m : {"train_loss", "val_loss", "val_rmse", "val_mae", "val_r2", "samples_per_s",
                        "epoch_seconds", "cpu_threads"})
    EXPECT_TRUE(ctx.last.count(m)) << m;
  EXPECT_EQ(ctx.last["cpu_threads"], 2);
  EXPECT_GT(ctx.last["val_r2"], 0.97);
  EXPECT_GT(Get(r, "test_r2"), 0.97);
  EXPECT_LT(Get(r, "test_rmse"), 0.8);  // y's spread is about 4
}

TEST(TreeTaskTest, ClassificationBinaryAndMultiClass) {
  CsvFolder f;
  for (int classes : {2, 4}) {
    pb::Assign a = TreeAssign(f.Write("c.csv", Table(2000, classes)), 2, 60);
    Recorder ctx;
    TaskResult r = RunTask(a, &ctx);
    ASSERT_EQ(r.outcome, pb::TRIAL_OUTCOME_COMPLETED) << r.error;
    EXPECT_GT(ctx.last["val_accuracy"], 0.85) << classes;
    EXPECT_GT(Get(r, "test_accuracy"), 0.85) << classes;
    EXPECT_TRUE(std::isfinite(Get(r, "test_f1"))) << classes;
    EXPECT_LT(Get(r, "test_loss"), 0.5) << classes;
  }
}

// With rows and columns sampled, every round draws: the resumed trial must
// draw what the uninterrupted one drew. Without, nothing is drawn.
TEST(TreeTaskTest, AResumedTrialEndsWithTheUninterruptedOnesModel) {
  CsvFolder f;
  const std::string table = f.Write("c.csv", Table(1500, 3));
  for (bool sampled : {true, false}) {
    SCOPED_TRACE(sampled ? "sampled" : "not sampled");
    pb::Assign a = TreeAssign(table, 4, 40);
    if (sampled) {
      a.mutable_task()->mutable_train()->set_subsample(0.7);
      a.mutable_task()->mutable_train()->set_colsample_bytree(0.8);
    }
    a.mutable_task()->mutable_train()->set_eta(0.2);
    Recorder whole;
    TaskResult all = RunTask(a, &whole);
    ASSERT_EQ(all.outcome, pb::TRIAL_OUTCOME_COMPLETED) << all.error;
    pb::Assign resumed = a;
    resumed.set_checkpoint(whole.checkpoints[2]);
    resumed.set_checkpoint_step(2);
    Recorder rest;
    TaskResult end = RunTask(resumed, &rest);
    ASSERT_EQ(end.outcome, pb::TRIAL_OUTCOME_COMPLETED) << end.error;
    EXPECT_EQ(rest.steps, (std::vector<int64_t>{3, 4}));
    EXPECT_TRUE(rest.checkpoints[4] == whole.checkpoints[4]);  // the same trees, byte for byte
    EXPECT_EQ(Get(end, "test_loss"), Get(all, "test_loss"));
    EXPECT_EQ(rest.last["val_loss"], whole.last["val_loss"]);
  }
}

// missing: native: a missing number stays missing, and the trees learn
// where it goes: here a third of x1 is missing, and when it is the class is
// c1, which only a tree that sends missing cells their own way gets right.
TEST(TreeTaskTest, MissingNumbersStayMissingForTheTrees) {
  CsvFolder f;
  std::string table = "x1,x2,y\n";
  Rng rng(2);
  for (int i = 0; i < 1500; ++i) {
    const double x1 = rng.Uniform() * 2 - 1, x2 = rng.Uniform();
    const bool gone = i % 3 == 0;
    table += (gone ? std::string() : std::to_string(x1)) + "," + std::to_string(x2) + "," +
             (gone     ? "c1"
              : x1 < 0 ? "c0"
                       : "c2") +
             "\n";
  }
  pb::Assign a = TreeAssign(f.Write("m.csv", table), 2, 30);
  a.mutable_task()->mutable_train()->mutable_data()->mutable_csv()->set_missing("native");
  Recorder ctx;
  TaskResult r = RunTask(a, &ctx);
  ASSERT_EQ(r.outcome, pb::TRIAL_OUTCOME_COMPLETED) << r.error;
  EXPECT_GT(Get(r, "test_accuracy"), 0.98);
  a.mutable_task()->mutable_train()->mutable_data()->mutable_csv()->clear_missing();
  r = RunTask(a, &ctx);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_FAILED);
}

TEST(TreeTaskTest, ACheckpointOfOtherDataOrDamagedIsRefused) {
  CsvFolder f;
  pb::Assign a = TreeAssign(f.Write("a.csv", Table(500, 2)), 2, 10);
  Recorder first;
  ASSERT_EQ(RunTask(a, &first).outcome, pb::TRIAL_OUTCOME_COMPLETED);
  pb::Assign other = TreeAssign(f.Write("b.csv", Table(500, 2, 9)), 2, 10);
  other.set_checkpoint(first.checkpoints[1]);
  other.set_checkpoint_step(1);
  Recorder ctx;
  TaskResult r = RunTask(other, &ctx);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_FAILED);
  EXPECT_NE(r.error.find("written for other data"), std::string::npos) << r.error;
  std::string damaged = first.checkpoints[1];
  damaged[damaged.size() / 2] ^= 1;
  a.set_checkpoint(damaged);
  a.set_checkpoint_step(1);
  r = RunTask(a, &ctx);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_FAILED);
  EXPECT_NE(r.error.find("checksum mismatch"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace sweep
