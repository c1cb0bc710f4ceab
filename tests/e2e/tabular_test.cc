// End to end on the user's own data: real `sweep validate` and `sweep run`
// processes over CSV tables, scikit-learn's iris as Debian installs it and
// a generated regression table, through Hyperband (promoted trials resume
// their checkpoints) and PBT (children continue from their parents'). A
// file that does not parse is refused before anything is stored.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/rng.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

const char* kIris = "/usr/lib/python3/dist-packages/sklearn/datasets/data/iris.csv";

TEST(E2eTabularTest, IrisThroughHyperbandResumesCheckpointsAndReportsF1) {
  if (!std::filesystem::exists(kIris)) GTEST_SKIP() << "python3-sklearn is not installed";
  TempDir dir;
  std::string study = dir.Write(
      "iris.yaml", std::string("name: iris\nobjective: {metric: val_accuracy, goal: maximize}\n"
                               "task:\n  train:\n    data:\n      csv: {train: ") +
                       kIris +
                       ", header: false, skip_rows: 1, label: c5}\n"
                       "    model: mlp\n    epochs: 9\n    batch_size: 8\n    optimizer: adam\n"
                       "    hidden_layers: 1\n    threads: 1\n"
                       "algorithm: {type: hyperband, hyperband: {reduction_factor: 3}}\nseed: 3\n"
                       "parameters:\n  lr: {type: float, min: 0.003, max: 0.03, log: true}\n"
                       "  hidden_units: {type: int, min: 8, max: 64}\n");
  std::string out, db = dir.File("iris.db");
  ASSERT_EQ(RunSweep({"validate", study}, &out), 0) << out;
  EXPECT_NE(out.find("data: 120 training examples (validation comes out of them), 30 test; 4 "
                     "features; 3 classes: 0, 1, 2"),
            std::string::npos)
      << out;
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"},
                     &out, 300000),
            0)
      << out;
  int64_t completed = QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'");
  EXPECT_GT(completed, 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0) << out;
  // Every epoch checkpointed; a promoted trial went on from its rung and
  // never re-ran an epoch: one report per epoch, 1 to 9.
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM checkpoints"), 0);
  int64_t promoted = QueryInt(db,
                              "SELECT trial_id FROM decisions WHERE decision = 'continue' AND "
                              "reason LIKE 'promoted%' LIMIT 1");
  ASSERT_GT(promoted, 0) << out;
  EXPECT_EQ(
      QueryInt(db,
               "SELECT count(*) FROM reports WHERE metric = 'val_accuracy' AND "
               "trial_id = " +
                   std::to_string(promoted)),
      QueryInt(db, "SELECT max(step) FROM reports WHERE trial_id = " + std::to_string(promoted)));
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM reports WHERE metric='val_f1'"), 0);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='completed' AND metrics LIKE "
                     "'%test_f1%' AND metrics LIKE '%test_accuracy%'"),
            completed);
  ASSERT_EQ(RunSweep({"best", "--db", db, "--format", "json"}, &out), 0) << out;
  EXPECT_NE(out.find("test_accuracy"), std::string::npos) << out;
  // Every epoch checkpointed: steps between the rungs (1, 3) and the end (9) too.
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM checkpoint_history WHERE step NOT IN (1, 3, 9)"), 0);

  // resources.checkpoint_every_s: a trial checkpoints only at its rungs and
  // its end, and Hyperband still resumes promoted trials from their rungs.
  {
    std::ifstream in(study);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string sparse = dir.Write("sparse.yaml", text + "resources: {checkpoint_every_s: 3600}\n");
    std::string sdb = dir.File("sparse.db");
    ASSERT_EQ(RunSweep({"run", sparse, "--db", sdb, "--local-runners", "2", "--progress", "plain"},
                       &out, 300000),
              0)
        << out;
    EXPECT_EQ(QueryInt(sdb, "SELECT count(*) FROM trials WHERE status='failed'"), 0) << out;
    EXPECT_GT(QueryInt(sdb, "SELECT count(*) FROM checkpoint_history"), 0);
    EXPECT_EQ(QueryInt(sdb, "SELECT count(*) FROM checkpoint_history WHERE step NOT IN (1, 3, 9)"),
              0);
    const int64_t p = QueryInt(sdb,
                               "SELECT trial_id FROM decisions WHERE decision = 'continue' AND "
                               "reason LIKE 'promoted%' LIMIT 1");
    ASSERT_GT(p, 0) << out;
    EXPECT_EQ(QueryInt(sdb,
                       "SELECT count(*) FROM reports WHERE metric = 'val_accuracy' AND "
                       "trial_id = " +
                           std::to_string(p)),
              QueryInt(sdb, "SELECT max(step) FROM reports WHERE trial_id = " + std::to_string(p)));
  }

  // The best trial's network, exported and run on every row of the file.
  std::string model = dir.File("iris.onnx");
  ASSERT_EQ(RunSweep({"export-model", "--db", db, "-o", model}, &out), 0) << out;
  EXPECT_NE(out.find("wrote " + model + ": trial "), std::string::npos) << out;
  EXPECT_GT(std::filesystem::file_size(model), 1000u);
  ASSERT_EQ(RunSweep({"predict", "--db", db, "--input", kIris}, &out), 0) << out;
  std::istringstream lines(out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "prediction,p_0,p_1,p_2");
  // iris.csv is 50 rows of each class, in order.
  int rows = 0, right = 0;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::string predicted, p;
    std::getline(cells, predicted, ',');
    double sum = 0;
    while (std::getline(cells, p, ',')) sum += std::stod(p);
    EXPECT_NEAR(sum, 1.0, 1e-5) << line;
    right += predicted == std::to_string(rows / 50);
    ++rows;
  }
  EXPECT_EQ(rows, 150);
  EXPECT_GT(right, 120) << out;
  // A row that does not parse is named; a trial without a network says so.
  std::string bad = dir.Write("bad_rows.csv", "skipped\n5.1,3.5,1.4,0.2\n4.9,x,1.4,0.2\n");
  EXPECT_EQ(RunSweep({"predict", "--db", db, "--input", bad}, &out), 1);
  EXPECT_NE(out.find("bad_rows.csv:3:2: 'x', not a number, in numeric column 'c2'"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"export-model", "--db", db, "999", "-o", model}, &out), 1);
  EXPECT_NE(out.find("999"), std::string::npos) << out;
}

TEST(E2eTabularTest, RegressionThroughPbtContinuesFromParents) {
  TempDir dir;
  std::string csv = "x1,x2,grade,y\n";
  Rng rng(11);
  for (int i = 0; i < 300; ++i) {
    double x1 = rng.Uniform(), x2 = rng.Uniform();
    int grade = static_cast<int>(rng.Next() % 3);
    csv += std::to_string(x1) + "," + std::to_string(x2) + "," + "abc"[grade] + "," +
           std::to_string(10 * x1 - 4 * x2 + grade) + "\n";
  }
  std::filesystem::create_directories(dir.File("data"));
  dir.Write("data/table.csv", csv);
  // The path is the study file's folder's: data/table.csv beside it.
  std::string study = dir.Write(
      "reg.yaml",
      "name: reg\nobjective: {metric: val_rmse, goal: minimize}\n"
      "task:\n  train:\n    problem: regression\n    data: {csv: {train: data/table.csv, "
      "label: y}}\n"
      "    model: mlp\n    epochs: 6\n    batch_size: 16\n    optimizer: adam\n    lr: 0.01\n"
      "    hidden_layers: 1\n    hidden_units: 16\n    threads: 1\n"
      "algorithm: {type: pbt, pbt: {population: 4, perturbation_interval: 2}}\nseed: 5\n"
      "parameters:\n  weight_decay: {type: float, min: 1.0e-6, max: 1.0e-3, log: true}\n");
  std::string out, db = dir.File("reg.db");
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"},
                     &out, 300000),
            0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0) << out;
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM trials WHERE parent_id IS NOT NULL"), 0) << out;
  // A child starts from its parent's checkpoint: its first report is the
  // step after the parent's.
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials t WHERE parent_id IS NOT NULL AND (SELECT "
                     "min(step) FROM reports r WHERE r.trial_id = t.id) != t.parent_step + 1"),
            0);
  EXPECT_GT(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='completed' AND metrics LIKE "
                     "'%test_rmse%' AND metrics LIKE '%test_r2%'"),
            0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports WHERE metric='val_accuracy'"), 0);
  ASSERT_EQ(RunSweep({"best", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("val_rmse"), std::string::npos) << out;
}

TEST(E2eTabularTest, AFileThatDoesNotParseIsRefusedBeforeAnythingIsStored) {
  TempDir dir;
  dir.Write("bad.csv", "size,colour,price\n1.5,red,10\n2.5,blue\n3,red,12\n");
  std::string study = dir.Write(
      "bad.yaml",
      "name: bad\nobjective: {metric: val_rmse, goal: minimize}\n"
      "task:\n  train: {problem: regression, data: {csv: {train: bad.csv, label: price}}}\n"
      "algorithm: {type: random, max_trials: 2}\nparameters:\n"
      "  lr: {type: float, min: 0.001, max: 0.1}\n");
  std::string out, db = dir.File("bad.db");
  EXPECT_EQ(RunSweep({"validate", study}, &out), 1);
  EXPECT_NE(out.find("task.train.data: " + dir.File("bad.csv") +
                     ":3: has 2 fields, the header "
                     "has 3"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"run", study, "--db", db, "--progress", "plain"}, &out), 1);
  EXPECT_NE(out.find("bad.csv:3: has 2 fields"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(db) &&
               QueryInt(db, "SELECT count(*) FROM sqlite_master WHERE name='trials'") > 0 &&
               QueryInt(db, "SELECT count(*) FROM trials") > 0);
  // A file this machine lacks: `validate` says the runners must have it;
  // `run` with local runners refuses it.
  std::string gone = dir.Write("gone.yaml",
                               "name: gone\nobjective: {metric: val_accuracy, goal: maximize}\n"
                               "task:\n  train: {data: {csv: {train: nowhere.csv, label: y}}}\n"
                               "algorithm: {type: random, max_trials: 1}\nparameters:\n"
                               "  lr: {type: float, min: 0.001, max: 0.1}\n");
  ASSERT_EQ(RunSweep({"validate", gone}, &out), 0) << out;
  EXPECT_NE(out.find("nowhere.csv is not on this machine: the runners must have it"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"run", gone, "--db", dir.File("gone.db"), "--progress", "plain"}, &out), 1);
  EXPECT_NE(out.find("nowhere.csv is not on this machine, where the local runners would read it"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace sweep::e2e
