// What `sweep automl TABLE --label COL` runs: the study file it writes (the
// model families' space of search_spaces/model_families.h, TPE, the time
// limit), the problem it reads off the label column where none is given,
// and the known-good configurations that run first.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace sweep {

struct AutomlRequest {
  std::string table;  // the training CSV
  std::string label;
  std::string test;     // a test CSV, or empty: a seeded share of `table`
  std::string problem;  // classification | regression | empty: read off the label
  std::string time_limit = "60s";
  std::string metric;  // empty: val_loss (classification) or val_r2
  uint64_t seed = 0;
  std::string name;  // the study's name
};

struct AutomlStudy {
  std::string text;         // the study file
  std::string problem;      // as chosen
  std::string problem_why;  // "the label 'y' has 3 values, all words"
  std::string metric;       // the objective's
  bool minimize = false;    // its goal
  std::string test_metric;  // the final metric printed: test_accuracy or test_r2
  int folds = 0;            // task.train.folds: 5 on small tables, else 0 (one split)
  // One JSON object each: the configurations enqueued before the search.
  std::vector<std::string> starts;
};

// Reads the table's header and label column (the problem, and a clear
// error for a missing label) and writes the study.
Result<AutomlStudy> PlanAutoml(const AutomlRequest& request);

}  // namespace sweep
