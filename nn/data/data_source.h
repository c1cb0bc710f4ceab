// Which data a train task reads, and its loading: IDX image folders
// (Fashion-MNIST, MNIST), CSV tables or NumPy arrays (pb::TrainData). The
// loaded data is the training pool and the test set; each trial then carves
// its validation split from the pool with its own seed. A runner loads each
// source once and shares it among its trials (trial_runner/train_task.cc);
// the tuner loads it too, to reject a file that does not parse before any
// trial runs.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "nn/data/csv_file.h"
#include "nn/data/examples.h"
#include "nn/data/table_data.h"
#include "proto/sweep.pb.h"

namespace sweep::nn {

struct DataSpec {
  std::string idx_dir;  // IDX: the folder, when `files` has no source
  pb::TrainData files;
  Problem problem = Problem::kClassification;

  std::string Key() const;       // equal for specs that load the same data
  std::string Describe() const;  // for messages: the folder or the training file
};

// How a study's CSV is read and encoded (the same for training and for
// rows to predict).
CsvOptions CsvOptionsOf(const pb::CsvData& csv);
TableOptions TableOptionsOf(const pb::CsvData& csv, Problem problem);

// task.train.problem as a Problem (validation has checked the word).
Problem ProblemOf(const pb::TrainTask& task);

// The pool is in `train`, `validation` is empty. Tables are standardised
// with the pool's statistics; pixels are normalised per trial (CarveSplits).
// Sets the fingerprint.
Result<Splits> LoadData(const DataSpec& spec);

// A hash of the examples, labels and targets of the pool and the test set,
// their shapes, and the statistics they were standardised with.
uint64_t Fingerprint(const Splits& s);

// The trial's splits: `validation` examples of the pool chosen with `seed`.
Result<Splits> CarveSplits(const Splits& pool, int validation, uint64_t seed);

// A trial's splits, the one it keeps first: with `folds` < 2, one
// (CarveSplits: `validation` examples of the pool held out); with K = `folds`
// (cross-validation), K + 1: first the whole pool (no validation split: the
// model that is kept, tested and exported), then the K folds, fold k
// validating on the k-th of K near-equal parts of the pool (permuted with
// `seed`) and training on the rest, with no test split. Fails when a part
// would be empty.
Result<std::vector<Splits>> TrialSplits(const Splits& pool, int validation, int folds,
                                        uint64_t seed);
// TrialSplits' first only (the kept model's), without building the folds.
Result<Splits> KeptSplits(const Splits& pool, int validation, int folds, uint64_t seed);

// The test split a training file without its own test file gives up:
// `fraction` of its n rows (data.test_fraction, default below), at least one.
inline constexpr double kDefaultTestFraction = 0.2;
int TestRows(int n, double fraction);

// The validation split's size when the study sets none: 5000 images of an
// IDX folder (as Fashion-MNIST's studies always had), else a fifth of the
// pool.
int DefaultValidation(const DataSpec& spec, const Splits& pool);

}  // namespace sweep::nn
