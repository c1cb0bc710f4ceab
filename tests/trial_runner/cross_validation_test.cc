// task.train.folds: the folds partition the pool, a cross-validated trial
// reports the folds' mean, keeps (tests, checkpoints first) the model that
// trained on every row, and resumes every model where it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/rng.h"
#include "nn/gbdt/booster.h"
#include "trial_runner/fold_checkpoint.h"
#include "trial_runner/step_recorder.h"
#include "trial_runner/train_metrics.h"
#include "trial_runner/train_task.h"
#include "trial_runner/tree_task.h"

namespace sweep {
namespace {

using Recorder = StepRecorder;

// y = x1 - x2 + noise, cut into 3 classes; 200 rows.
struct Table {
  std::string path = "/tmp/sweep_cross_validation_test_" + std::to_string(getpid()) + ".csv";
  Table() {
    std::ofstream f(path);
    f << "x1,x2,y\n";
    Rng rng(11);
    for (int i = 0; i < 200; ++i) {
      double x1 = rng.Uniform() * 4 - 2, x2 = rng.Uniform() * 4 - 2;
      double y = x1 - x2 + rng.Uniform() - 0.5;
      f << x1 << "," << x2 << ",c" << (y < -1 ? 0 : y < 1 ? 1 : 2) << "\n";
    }
  }
  ~Table() { std::filesystem::remove(path); }
};

pb::Assign Assign(const std::string& table, const std::string& model, int folds) {
  pb::Assign a;
  a.set_seed(4);
  pb::TrainTask* t = a.mutable_task()->mutable_train();
  t->set_model(model);
  t->set_epochs(3);
  t->set_threads(1);
  t->set_batch_size(16);
  t->set_rounds(30);
  if (folds > 0) t->set_folds(folds);
  t->mutable_data()->mutable_csv()->set_train(table);
  t->mutable_data()->mutable_csv()->set_label("y");
  return a;
}

double Get(const TaskResult& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name() == name) return m.value();
  return std::nan("");
}

std::vector<float> Sorted(const nn::Examples& e) {
  std::vector<float> v = e.values;
  std::sort(v.begin(), v.end());
  return v;
}

TEST(CrossValidationTest, TheFoldsPartitionThePoolAndTheKeptModelHasEveryRow) {
  Table table;
  TrialSetup setup;
  ASSERT_TRUE(TrainConfigFor(Assign(table.path, "gbdt", 3), &setup).ok());
  auto pool = nn::LoadData(setup.data);
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  auto splits = SplitsFor(setup, *pool, 4);
  ASSERT_TRUE(splits.ok()) << splits.status().message();
  ASSERT_EQ(splits->size(), 4u);
  const int n = pool->train.n;
  EXPECT_EQ((*splits)[0].train.n, n);
  EXPECT_EQ((*splits)[0].validation.n, 0);
  std::vector<float> held_out;
  for (size_t k = 1; k < splits->size(); ++k) {
    const nn::Splits& fold = (*splits)[k];
    EXPECT_EQ(fold.train.n + fold.validation.n, n);
    EXPECT_NEAR(fold.validation.n, n / 3.0, 1);
    EXPECT_EQ(fold.test.n, 0);  // only the kept model is tested
    held_out.insert(held_out.end(), fold.validation.values.begin(), fold.validation.values.end());
    // Each fold trains on exactly the rows it does not validate on.
    std::vector<float> both = fold.train.values;
    both.insert(both.end(), fold.validation.values.begin(), fold.validation.values.end());
    std::sort(both.begin(), both.end());
    EXPECT_EQ(both, Sorted(pool->train));
  }
  std::sort(held_out.begin(), held_out.end());
  EXPECT_EQ(held_out, Sorted(pool->train));  // every row validated on once
  // More folds than rows is refused, naming both.
  setup.folds = n + 1;
  auto too_many = SplitsFor(setup, *pool, 4);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("training set's " + std::to_string(n)),
            std::string::npos);
}

// The trees of a cross-validated trial: val_* is each fold's booster on its
// own fold, averaged; test_* and the checkpoint's first model are those of a
// booster trained on every row (a validation: 0 trial's).
TEST(CrossValidationTest, TreesReportTheFoldsMeanAndKeepTheModelOfEveryRow) {
  Table table;
  pb::Assign a = Assign(table.path, "gbdt", 4);
  Recorder ctx;
  TaskResult r = RunTask(a, &ctx);
  ASSERT_EQ(r.outcome, pb::TRIAL_OUTCOME_COMPLETED) << r.error;
  EXPECT_EQ(ctx.steps, (std::vector<int64_t>{1, 2, 3}));

  TrialSetup setup;
  auto config = TrainConfigFor(a, &setup);
  ASSERT_TRUE(config.ok());
  auto pool = nn::LoadData(setup.data);
  ASSERT_TRUE(pool.ok());
  auto splits = SplitsFor(setup, *pool, config->seed);
  ASSERT_TRUE(splits.ok());
  std::vector<nn::Evaluation> folds;
  for (size_t k = 1; k < splits->size(); ++k) {
    nn::TreeConfig trees = config->trees;
    trees.threads = 1;
    auto b = nn::Booster::Train(trees, (*splits)[k]);
    ASSERT_TRUE(b.ok()) << b.status().message();
    ASSERT_TRUE((*b)->Boost(30).ok());
    auto val = (*b)->PredictSet(true);
    ASSERT_TRUE(val.ok());
    folds.push_back(EvaluateTrees((*splits)[k], (*splits)[k].validation, *val));
  }
  const nn::Evaluation mean = MeanEvaluation(folds);
  EXPECT_NEAR(ctx.last["val_loss"], mean.loss, 1e-9);
  EXPECT_NEAR(ctx.last["val_accuracy"], mean.accuracy, 1e-9);
  EXPECT_NE(folds[0].loss, folds[1].loss);  // a mean of different folds, not one fold's

  pb::Assign whole = a;
  whole.mutable_task()->mutable_train()->clear_folds();
  whole.mutable_task()->mutable_train()->set_validation(0);
  Recorder one;
  TaskResult kept = RunTask(whole, &one);
  ASSERT_EQ(kept.outcome, pb::TRIAL_OUTCOME_COMPLETED) << kept.error;
  EXPECT_EQ(Get(r, "test_loss"), Get(kept, "test_loss"));
  auto parts = UnpackCheckpoints(ctx.checkpoints[3], 5);
  ASSERT_TRUE(parts.ok()) << parts.status().message();
  EXPECT_TRUE(parts->front() == one.checkpoints[3]);
}

// Paused after step 1 and resumed, every model goes on where it was: the
// same checkpoint, validation and test metrics as an uninterrupted trial.
TEST(CrossValidationTest, AResumedTrialEndsWhereTheUninterruptedOneDoes) {
  Table table;
  for (const char* model : {"gbdt", "mlp"}) {
    SCOPED_TRACE(model);
    pb::Assign a = Assign(table.path, model, 3);
    Recorder whole;
    TaskResult all = RunTask(a, &whole);
    ASSERT_EQ(all.outcome, pb::TRIAL_OUTCOME_COMPLETED) << all.error;
    EXPECT_TRUE(std::isfinite(whole.last["val_loss"]));
    pb::Assign resumed = a;
    resumed.set_checkpoint(whole.checkpoints[1]);
    resumed.set_checkpoint_step(1);
    Recorder rest;
    TaskResult end = RunTask(resumed, &rest);
    ASSERT_EQ(end.outcome, pb::TRIAL_OUTCOME_COMPLETED) << end.error;
    EXPECT_EQ(rest.steps, (std::vector<int64_t>{2, 3}));
    EXPECT_TRUE(rest.checkpoints[3] == whole.checkpoints[3]);
    EXPECT_EQ(rest.last["val_loss"], whole.last["val_loss"]);
    EXPECT_EQ(Get(end, "test_loss"), Get(all, "test_loss"));

    // A checkpoint of another fold count is refused, not half loaded.
    pb::Assign other = a;
    other.mutable_task()->mutable_train()->set_folds(2);
    other.set_checkpoint(whole.checkpoints[1]);
    other.set_checkpoint_step(1);
    Recorder refused;
    TaskResult bad = RunTask(other, &refused);
    EXPECT_EQ(bad.outcome, pb::TRIAL_OUTCOME_FAILED);
    EXPECT_NE(bad.error.find("cannot resume: checkpoint: it holds 4 models"), std::string::npos)
        << bad.error;
  }
}

TEST(CrossValidationTest, PackedCheckpointsRoundTripAndRefuseDamage) {
  const std::vector<std::string> parts = {"kept", "", std::string("fo\0ld", 5)};
  const std::string blob = PackCheckpoints(parts);
  auto back = UnpackCheckpoints(blob, 3);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, parts);
  EXPECT_EQ(PackCheckpoints({"one"}), "one");  // one model: its own checkpoint as it is
  EXPECT_EQ(UnpackCheckpoints("one", 1)->front(), "one");
  EXPECT_FALSE(UnpackCheckpoints("one", 3).ok());
  EXPECT_FALSE(UnpackCheckpoints(blob, 1).ok());
  EXPECT_FALSE(UnpackCheckpoints(blob, 2).ok());
  for (size_t cut = 4; cut < blob.size(); ++cut)
    EXPECT_FALSE(UnpackCheckpoints(blob.substr(0, cut), 3).ok()) << cut;
  EXPECT_FALSE(UnpackCheckpoints(blob + "x", 3).ok());
}

}  // namespace
}  // namespace sweep
