// End to end for the search over model families on a table: `model: auto`
// on a csv table becomes gbdt, mlp and linear with each family's knobs
// conditional on `model` (real `sweep plan`, `sweep validate`, `sweep run`),
// every trial draws only its own family's knobs, and the search learns
// from all of them; a family's knob drawn for the others is refused.
#include <gtest/gtest.h>

#include "common/rng.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

// Two classes from two numbers and a word.
std::string Table(int rows, uint64_t seed) {
  std::string out = "x1,shade,x2,y\n";
  Rng rng(seed);
  for (int i = 0; i < rows; ++i) {
    const double x1 = rng.Uniform() * 4 - 2, x2 = rng.Uniform() * 4 - 2;
    const bool dark = rng.Next() & 1;
    const bool up = x1 * x2 + (dark ? 0.5 : 0) > 0;
    out += std::to_string(x1) + "," + (dark ? "dark" : "light") + "," + std::to_string(x2) + "," +
           (up ? "up" : "down") + "\n";
  }
  return out;
}

std::string Study(const TempDir& dir, const std::string& train, const std::string& task,
                  const std::string& parameters) {
  return dir.Write("families.yaml",
                   "name: families\nobjective: {metric: val_accuracy, goal: maximize}\n"
                   "task:\n  train:\n    data:\n      csv: {train: " +
                       train + ", label: y}\n    epochs: 4\n    threads: 1\n" + task +
                       "algorithm: {type: tpe, max_trials: 14, tpe: {n_startup_trials: 8}}\n"
                       "seed: 5\n" +
                       parameters);
}

TEST(E2eModelFamiliesTest, AutoOnATableSearchesEachFamilyWithItsOwnKnobs) {
  TempDir dir;
  std::string train = dir.Write("train.csv", Table(400, 2)), out;
  std::string study = Study(dir, train, "    model: auto\n    rounds: 40\n", "");
  ASSERT_EQ(RunSweep({"validate", "--print", study}, &out), 0) << out;
  EXPECT_NE(out.find("name: \"model\"\n  type: PARAM_TYPE_CATEGORICAL"), std::string::npos) << out;
  EXPECT_NE(out.find("name: \"eta\"\n  type: PARAM_TYPE_FLOAT\n  min: 0.01\n  max: 0.5\n  "
                     "log: true\n  when {\n    parent: \"model\"\n    values {\n      text: "
                     "\"gbdt\"\n    }\n  }"),
            std::string::npos)
      << out;
  // rounds is fixed in the task: the space leaves it out.
  EXPECT_EQ(out.find("name: \"rounds\""), std::string::npos) << out;
  const std::string db = dir.File("f.db");
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"},
                     &out, 300000),
            0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 14) << out;
  auto family = [&](const std::string& m) {
    return QueryInt(db, "SELECT count(*) FROM trials WHERE json_extract(params, '$.model')='" + m +
                            "' AND status='completed'");
  };
  EXPECT_GT(family("gbdt"), 0);
  EXPECT_GT(family("mlp") + family("linear"), 0);
  // Each trial drew its own family's knobs and no other's.
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE json_extract(params, '$.model')='gbdt' "
                     "AND (json_extract(params, '$.lr') IS NOT NULL OR "
                     "json_extract(params, '$.eta') IS NULL)"),
            0);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE json_extract(params, '$.model')='linear' "
                     "AND (json_extract(params, '$.hidden_units') IS NOT NULL OR "
                     "json_extract(params, '$.eta') IS NOT NULL OR "
                     "json_extract(params, '$.lr') IS NULL)"),
            0);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE json_extract(params, '$.model')='mlp' "
                     "AND json_extract(params, '$.hidden_units') IS NULL"),
            0);
  // The best trial learned the table (the x1*x2 sign is not linear: trees
  // and networks with a hidden layer get it).
  EXPECT_GT(
      QueryInt(db, "SELECT count(*) FROM reports WHERE metric='val_accuracy' AND value > 0.85"), 0);
}

TEST(E2eModelFamiliesTest, AKnobOfOneFamilyMustBeDrawnOnlyForIt) {
  TempDir dir;
  std::string train = dir.Write("train.csv", Table(60, 2)), out;
  std::string unconditioned =
      Study(dir, train, "",
            "parameters:\n  model: {type: categorical, values: [gbdt, mlp]}\n"
            "  eta: {type: float, min: 0.05, max: 0.5}\n"
            "  activation: {type: categorical, values: [relu, tanh], when: {model: mlp}}\n"
            "  hidden_units: {type: int, min: 8, max: 64, when: {activation: relu}}\n");
  ASSERT_NE(RunSweep({"validate", unconditioned}, &out), 0);
  EXPECT_NE(out.find("parameters.eta.when: 'eta' shapes gbdt trees only, and model is searched: "
                     "add when: {model: gbdt}"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("parameters.activation"), std::string::npos) << out;
  // hidden_units hangs from activation, which hangs from model: mlp.
  EXPECT_EQ(out.find("parameters.hidden_units"), std::string::npos) << out;
  // A searched linear model draws no hidden layer's knob.
  std::string searched =
      Study(dir, train, "",
            "parameters:\n  model: {type: categorical, values: [mlp, linear]}\n"
            "  hidden_units: {type: int, min: 8, max: 64, when: {model: [mlp, linear]}}\n");
  ASSERT_NE(RunSweep({"validate", searched}, &out), 0);
  EXPECT_NE(out.find("parameters.hidden_units.when: shapes a network's hidden layers, and a "
                     "linear model (model: linear) has none: add when: {model: mlp}"),
            std::string::npos)
      << out;
  // Conditions that form a cycle (each parameter with two parents): said
  // at once, not walked forever.
  std::string cycle =
      Study(dir, train, "    model: gbdt\n",
            "parameters:\n  max_depth: {type: int, min: 2, max: 6, when: {eta: 0.1, "
            "subsample: 0.5}}\n  eta: {type: categorical, values: [0.1, 0.2], when: "
            "{max_depth: 3, subsample: 0.5}}\n  subsample: {type: categorical, values: [0.5, 1], "
            "when: {eta: 0.1, max_depth: 3}}\n");
  ASSERT_NE(RunSweep({"validate", cycle}, &out, 20000), 0);
  EXPECT_NE(out.find("cycle"), std::string::npos) << out;
  // auto on a table with an algorithm that cannot search the families.
  std::string gp = dir.Write(
      "gp.yaml",
      "name: g\nobjective: {metric: val_accuracy, goal: maximize}\ntask:\n  train:\n    "
      "data: {csv: {train: " +
          train + ", label: y}}\n    model: auto\nalgorithm: {type: gp, max_trials: 5}\n");
  ASSERT_NE(RunSweep({"validate", gp}, &out), 0);
  EXPECT_NE(out.find("task.train.model: auto on a table searches the model families"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("conditional (when:)"), std::string::npos) << out;
  std::string linear = Study(dir, train, "    model: linear\n    hidden_units: 32\n", "");
  ASSERT_NE(RunSweep({"validate", linear}, &out), 0);
  EXPECT_NE(out.find("task.train.hidden_units: shapes a network's hidden layers, and a linear "
                     "model (model: linear) has none"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace sweep::e2e
