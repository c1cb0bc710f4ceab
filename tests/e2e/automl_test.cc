// End to end for `sweep automl`: real processes on generated CSV tables.
// It writes the study file, enqueues its first configurations, runs the
// families within the time limit, prints the test score, exports an ONNX
// model, and `sweep predict` reads the best trial; a rerun resumes, an
// edited study file is never overwritten, a label that is not a column is
// named with the columns there are; a label of fractions is a regression.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/rng.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

// kind is "up" or "down" from two numbers and a word; `value` a number.
std::string Table(int rows, uint64_t seed) {
  std::string out = "x1,shade,x2,kind,value\n";
  Rng rng(seed);
  for (int i = 0; i < rows; ++i) {
    const double x1 = rng.Uniform() * 4 - 2, x2 = rng.Uniform() * 4 - 2;
    const bool dark = rng.Next() & 1;
    const bool up = x1 + 0.5 * x2 + (dark ? 0.7 : 0) > 0.2;
    out += std::to_string(x1) + "," + (dark ? "dark" : "light") + "," + std::to_string(x2) + "," +
           (up ? "up" : "down") + "," + std::to_string(2 * x1 - x2 + 0.1 * rng.Uniform()) + "\n";
  }
  return out;
}

TEST(E2eAutomlTest, RunsWithinItsLimitExportsAndPredicts) {
  TempDir dir;
  const std::string train = dir.Write("train.csv", Table(300, 1));
  const std::string test = dir.Write("test.csv", Table(200, 2));
  const std::string db = dir.File("a.db"), study = dir.File("a.yaml"), model = dir.File("a.onnx");
  const std::vector<std::string> args = {
      "automl", train, "--label", "kind", "--test", test,  "--time-limit",    "15s",
      "--db",   db,    "--study", study,  "-o",     model, "--local-runners", "2"};
  std::string out;
  ASSERT_EQ(RunSweep(args, &out, 300000), 0) << out;
  EXPECT_NE(out.find("the label 'kind' holds words, so classification"), std::string::npos) << out;
  EXPECT_NE(out.find("best: trial "), std::string::npos) << out;
  EXPECT_NE(out.find("test_accuracy "), std::string::npos) << out;
  EXPECT_NE(out.find("wrote " + model), std::string::npos) << out;
  // The study file it ran: the families and their conditional knobs.
  std::ifstream in(study);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("model: {type: categorical, values: [gbdt, mlp, linear]}"), std::string::npos)
      << text;
  EXPECT_NE(text.find("eta: {type: float, min: 0.01, max: 0.5, log: true, when: {model: gbdt}}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("time_limit: {after: 15s, hard: true}"), std::string::npos) << text;
  // 300 rows: cross-validated (so the model predicted with below is the one
  // of every row, the first in each trial's packed checkpoint).
  EXPECT_NE(text.find("    folds: 5  # cross-validation"), std::string::npos) << text;
  EXPECT_NE(out.find("the search minimises val_loss over 5 folds for 15s"), std::string::npos)
      << out;
  // The three first configurations ran first, each family's.
  for (const char* m : {"gbdt", "mlp", "linear"})
    EXPECT_EQ(QueryInt(db, std::string("SELECT count(*) FROM trials WHERE number < 3 AND "
                                       "json_extract(params, '$.model') = '") +
                               m + "'"),
              1)
        << m;
  const int64_t trials = QueryInt(db, "SELECT count(*) FROM trials");
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 3);
  // No trial started past the limit (the first start is the run's).
  EXPECT_LE(QueryInt(db, "SELECT CAST(max(started_at) - min(started_at) AS INTEGER) FROM trials"),
            15);
  ASSERT_TRUE(std::filesystem::file_size(model) > 100);
  ASSERT_EQ(RunSweep({"predict", "--db", db, "--input", test, "--format", "csv"}, &out), 0) << out;
  // The test file's own labels (its fourth column) against the predictions.
  std::ifstream rows(test);
  std::istringstream predicted(out);
  std::string line, p;
  std::getline(rows, line);
  std::getline(predicted, p);  // the header
  int right = 0, n = 0;
  while (std::getline(rows, line) && std::getline(predicted, p)) {
    std::istringstream cells(line);
    std::string cell;
    for (int i = 0; i < 4; ++i) std::getline(cells, cell, ',');
    right += p.substr(0, p.find(',')) == cell ? 1 : 0;
    ++n;
  }
  EXPECT_EQ(n, 200);
  EXPECT_GT(right, 170) << out.substr(0, 400);

  // Again: the same study resumes (its time is spent), nothing enqueued twice.
  ASSERT_EQ(RunSweep(args, &out, 120000), 0) << out;
  EXPECT_NE(out.find("the study file of an earlier run; resuming it"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), trials);
  // A longer time limit: the same study goes on, with the file's limit changed.
  std::vector<std::string> longer = args;
  longer[7] = "18s";
  ASSERT_EQ(RunSweep(longer, &out, 120000), 0) << out;
  EXPECT_NE(out.find("the study of an earlier run, with the time limit now 18s"), std::string::npos)
      << out;
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM trials"), trials);  // the 3 s more ran trials
  // An edited study file is the user's: refused, not overwritten.
  std::ofstream(study, std::ios::app) << "# mine\n";
  EXPECT_NE(RunSweep(longer, &out), 0);
  EXPECT_NE(out.find("exists and differs from the study this command writes"), std::string::npos)
      << out;
  // A metric the task does not report: refused before any file is written.
  EXPECT_NE(RunSweep({"automl", train, "--label", "kind", "--metric", "val_nothing", "--db", db,
                      "--study", dir.File("m.yaml")},
                     &out),
            0);
  EXPECT_NE(out.find("val_nothing"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.File("m.yaml")));
}

TEST(E2eAutomlTest, ALabelOfFractionsIsARegressionAndAMissingLabelIsNamed) {
  TempDir dir;
  const std::string train = dir.Write("train.csv", Table(200, 3)), db = dir.File("r.db");
  std::string out;
  ASSERT_NE(RunSweep({"automl", train, "--label", "kinds", "--db", db}, &out), 0);
  EXPECT_NE(out.find("no column 'kinds'; did you mean 'kind'?"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"automl", train, "--label", "value", "--time-limit", "6s", "--db", db,
                      "--study", dir.File("r.yaml"), "-o", dir.File("r.onnx")},
                     &out, 300000),
            0)
      << out;
  EXPECT_NE(out.find("the label 'value' holds fractions, so regression"), std::string::npos) << out;
  EXPECT_NE(out.find("test_r2 "), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
