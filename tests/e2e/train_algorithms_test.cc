// Hyperband and PBT on real training (MLPs on a Fashion-MNIST subset): a
// promoted trial resumes its own weights, and a PBT child starts from its
// parent's weights, so its first report continues the parent's curve.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "e2e/harness.h"
#include "nn/data/mnist.h"

namespace sweep::e2e {
namespace {

double Metric(const std::string& db, int64_t trial_id, int64_t step, const std::string& metric) {
  auto rows = Query(db, "SELECT value FROM reports WHERE trial_id = " + std::to_string(trial_id) +
                            " AND step = " + std::to_string(step) + " AND metric = '" + metric +
                            "' ORDER BY attempt DESC LIMIT 1");
  if (rows.empty()) return std::nan("");
  return std::get<double>(rows[0][0]);
}

class E2eTrainAlgorithmsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(nn::kDefaultFashionMnistDir))
      GTEST_SKIP()
          << "dataset-fashion-mnist is not installed (scripts/install-deps.sh installs it)";
  }
};

TEST_F(E2eTrainAlgorithmsTest, PbtChildContinuesFromItsParentsWeights) {
  TempDir dir;
  // Explore changes only a negligible weight decay, so a child that really
  // holds its parent's weights, optimizer and data order reports what the
  // parent reports at the same epoch; one trained from scratch could not.
  std::string study = dir.Write(
      "pbt.yaml",
      "name: pbt-mlp\nobjective: {metric: val_accuracy, goal: maximize}\n"
      "task:\n  train: {model: mlp, epochs: 4, validation: 50000, hidden_layers: 1, "
      "hidden_units: 64, lr: 0.05, momentum: 0.9, lr_schedule: constant, threads: 1}\n"
      "algorithm: {type: pbt, pbt: {population: 4, perturbation_interval: 2, resample_prob: 0}}\n"
      "seed: 4\nparameters:\n"
      "  weight_decay: {type: float, min: 1.0e-9, max: 2.0e-9}\n");
  std::string db = dir.File("p.db"), out;
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"},
                     &out, 600000),
            0)
      << out;
  auto children = Query(db,
                        "SELECT id, parent_id, parent_step FROM trials WHERE parent_id IS NOT "
                        "NULL ORDER BY id");
  ASSERT_EQ(children.size(), 1u) << out;  // one generation (step 2), bottom quarter of 4
  int64_t child = std::get<int64_t>(children[0][0]), parent = std::get<int64_t>(children[0][1]);
  EXPECT_EQ(std::get<int64_t>(children[0][2]), 2);
  EXPECT_TRUE(std::isnan(Metric(db, child, 1, "val_accuracy")));  // it never ran epochs 1-2
  double child3 = Metric(db, child, 3, "val_accuracy"),
         parent3 = Metric(db, parent, 3, "val_accuracy");
  double parent1 = Metric(db, parent, 1, "val_accuracy");
  EXPECT_NEAR(child3, parent3, 0.01) << "parent epoch 1: " << parent1;
  EXPECT_GT(std::abs(parent3 - parent1), 0.005) << "the curve must move for the check to mean "
                                                   "anything";
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 4);
  ASSERT_EQ(RunSweep({"best", "--db", db}, &out), 0);
  EXPECT_NE(out.find("test_accuracy"), std::string::npos) << out;
}

TEST_F(E2eTrainAlgorithmsTest, HyperbandPromotedTrialsResumeTheirOwnWeights) {
  TempDir dir;
  std::string study =
      dir.Write("hb.yaml",
                "name: hb-mlp\nobjective: {metric: val_accuracy, goal: maximize}\n"
                "task:\n  train: {model: mlp, epochs: 3, validation: 50000, hidden_layers: 1, "
                "hidden_units: 64, threads: 1}\n"
                "algorithm: {type: hyperband, hyperband: {reduction_factor: 3}}\n"
                "seed: 6\nparameters:\n  lr: {type: float, min: 0.001, max: 0.3, log: true}\n");
  std::string db = dir.File("h.db"), out;
  ASSERT_EQ(RunSweep({"plan", study}, &out), 0);
  EXPECT_NE(out.find("3 @ 1  1 @ 3"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"},
                     &out, 600000),
            0)
      << out;
  // Bracket s=1: 3 trials for 1 epoch, the best goes on to 3; s=0: 2 x 3.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), 5);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'stopped' AND step = 1"), 2);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 3);
  EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT step) FROM reports"), 3);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports WHERE metric = 'val_accuracy'"), 3 + 2 + 6);
  // The promoted trial was paused after epoch 1 (unless it was the last in)
  // and in any case never re-ran epoch 1.
  int64_t promoted = QueryInt(db,
                              "SELECT trial_id FROM decisions WHERE decision = 'continue' AND "
                              "reason LIKE 'promoted%'");
  ASSERT_GT(promoted, 0);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM reports WHERE metric = 'val_accuracy' AND "
                     "trial_id = " +
                         std::to_string(promoted)),
            3);
}

}  // namespace
}  // namespace sweep::e2e
