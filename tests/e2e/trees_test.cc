// End to end for model: gbdt: real `sweep validate`, `sweep run`, `sweep
// predict` and `sweep export-model` processes on a generated CSV table.
// Hyperband pauses tree trials at its rungs and promoted ones go on from
// their booster checkpoints; knobs of the other model family are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/rng.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

// Three classes from two numbers and a word; rows of the test file say the
// class in order, c0, c1, c2, c0, ... for predict.
std::string Table(int rows, uint64_t seed) {
  std::string out = "x1,shade,x2,y\n";
  Rng rng(seed);
  for (int i = 0; i < rows; ++i) {
    const double x1 = rng.Uniform() * 4 - 2, x2 = rng.Uniform() * 4 - 2;
    const bool dark = rng.Next() & 1;
    const double y = 2 * x1 - x2 + (dark ? 1 : 0);
    const int c = y < -1 ? 0 : y < 1.5 ? 1 : 2;
    out += std::to_string(x1) + "," + (dark ? "dark" : "light") + "," + std::to_string(x2) + ",c" +
           std::to_string(c) + "\n";
  }
  return out;
}

std::string Study(const TempDir& dir, const std::string& train, const std::string& extra) {
  return dir.Write("trees.yaml",
                   "name: trees\nobjective: {metric: val_loss, goal: minimize}\n"
                   "task:\n  train:\n    data:\n      csv: {train: " +
                       train +
                       ", label: y}\n    model: gbdt\n    epochs: 9\n    rounds: 90\n"
                       "    threads: 1\n" +
                       extra +
                       "algorithm: {type: hyperband, hyperband: {reduction_factor: 3}}\nseed: 4\n"
                       "parameters:\n  eta: {type: float, min: 0.05, max: 0.5, log: true}\n"
                       "  max_depth: {type: int, min: 2, max: 8}\n"
                       "  subsample: {type: float, min: 0.5, max: 1}\n");
}

TEST(E2eTreesTest, HyperbandResumesTreeCheckpointsAndPredictReadsTheBest) {
  TempDir dir;
  std::string train = dir.Write("train.csv", Table(1200, 3));
  std::string study = Study(dir, train, ""), out, db = dir.File("t.db");
  ASSERT_EQ(RunSweep({"validate", study}, &out), 0) << out;
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"},
                     &out, 300000),
            0)
      << out;
  const int64_t completed = QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'");
  EXPECT_GT(completed, 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0) << out;
  // A promoted trial went on from its booster: one report per step, never
  // a step run twice.
  const int64_t promoted = QueryInt(db,
                                    "SELECT trial_id FROM decisions WHERE decision = 'continue' "
                                    "AND reason LIKE 'promoted%' LIMIT 1");
  ASSERT_GT(promoted, 0) << out;
  const std::string of =
      " FROM reports WHERE metric='val_loss' AND trial_id=" + std::to_string(promoted);
  EXPECT_EQ(QueryInt(db, "SELECT count(*)" + of), QueryInt(db, "SELECT max(step)" + of));
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='completed' AND metrics LIKE "
                     "'%test_accuracy%' AND metrics LIKE '%test_f1%'"),
            completed);
  EXPECT_GT(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='completed' AND "
                     "json_extract(metrics, '$.test_accuracy') > 0.9"),
            0);

  // The best trial's trees on new rows of the same kind.
  std::string rows = dir.Write("new.csv", Table(300, 11));
  ASSERT_EQ(RunSweep({"predict", "--db", db, "--input", rows}, &out), 0) << out;
  std::istringstream lines(out), truth(Table(300, 11));
  std::string line, want;
  std::getline(lines, line);
  EXPECT_EQ(line, "prediction,p_c0,p_c1,p_c2");
  std::getline(truth, want);
  int n = 0, right = 0;
  while (std::getline(lines, line) && std::getline(truth, want)) {
    std::istringstream cells(line);
    std::string predicted, p;
    std::getline(cells, predicted, ',');
    double sum = 0;
    while (std::getline(cells, p, ',')) sum += std::stod(p);
    EXPECT_NEAR(sum, 1.0, 1e-5) << line;
    right += predicted == want.substr(want.rfind(',') + 1);
    ++n;
  }
  EXPECT_EQ(n, 300);
  EXPECT_GT(right, 270) << out;
  // The trees as ONNX (what the model computes is tests/nn/onnx_trees_test.cc's
  // and bench/automl/onnx_agreement.sh's to check).
  EXPECT_EQ(RunSweep({"export-model", "--db", db, "-o", dir.File("t.onnx")}, &out), 0) << out;
  EXPECT_NE(out.find("at step 9"), std::string::npos) << out;
  EXPECT_GT(std::filesystem::file_size(dir.File("t.onnx")), 1000u);
}

TEST(E2eTreesTest, KnobsOfTheOtherModelAreRefusedAtValidation) {
  TempDir dir;
  std::string train = dir.Write("train.csv", Table(50, 3)), out;
  ASSERT_NE(RunSweep({"validate", Study(dir, train, "    hidden_units: 64\n")}, &out), 0);
  EXPECT_NE(out.find("'hidden_units' shapes networks (mlp, linear, cnn), and this study's model is "
                     "gbdt: remove it"),
            std::string::npos)
      << out;
  std::string mlp = dir.Write(
      "mlp.yaml",
      "name: m\nobjective: {metric: val_loss, goal: minimize}\ntask:\n  train:\n    data:\n"
      "      csv: {train: " +
          train +
          ", label: y, missing: native}\nalgorithm: {type: random, max_trials: 2}\nparameters:\n"
          "  eta: {type: float, min: 0.05, max: 0.5}\n");
  ASSERT_NE(RunSweep({"validate", mlp}, &out), 0);
  EXPECT_NE(out.find("'eta' shapes gbdt trees, and this study's model is mlp (the default): "
                     "remove it or set model: gbdt"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("native leaves a missing number missing, which only trees take (model: "
                     "gbdt); a network needs missing: mean"),
            std::string::npos)
      << out;
  std::string images = dir.Write(
      "images.yaml",
      "name: i\nobjective: {metric: val_loss, goal: minimize}\ntask:\n  train: {model: gbdt}\n"
      "algorithm: {type: random, max_trials: 1}\nparameters:\n"
      "  eta: {type: float, min: 0.05, max: 0.5}\n");
  ASSERT_NE(RunSweep({"validate", images}, &out), 0);
  EXPECT_NE(out.find("gbdt trains on tables: set task.train.data (a csv or npy table), or use mlp "
                     "or cnn for fashion-mnist"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace sweep::e2e
