// A CSV table as examples: which columns are features and how each becomes
// numbers (the encoding, fitted on the training rows only), and the label
// as a class or a regression target.
//
// - A column is numeric when more than half of its non-empty training cells
//   are finite numbers; it is standardised with the training mean and
//   standard deviation. Its empty or non-numeric cells are an error naming
//   file:line:column, or, with `impute_mean`, the training mean plus a 0/1
//   "<name>_missing" feature (where the training rows have any missing), or,
//   with `missing_nan`, NaN (for trees, which learn where missing goes).
// - Any other column is text: one 0/1 feature per distinct training value
//   (at most kMaxCategories; a value not seen in training is all zeros).
// - Classification: the label's distinct training values are the classes
//   (numbers in numeric order, else text in byte order). Regression: the
//   label must be a number in every row; it is standardised for training.
#pragma once

#include <string>
#include <vector>

#include "nn/data/csv_file.h"
#include "nn/data/examples.h"

namespace sweep::nn {

inline constexpr int kMaxCategories = 256;

struct TableOptions {
  std::string label;
  std::vector<std::string> ignore;  // columns left out
  Problem problem = Problem::kClassification;
  bool impute_mean = false;
  bool missing_nan = false;  // a missing number is NaN (model gbdt: missing: native)
  // false: rows to predict, which need no label (one that is there is
  // ignored).
  bool labels = true;
};

struct ColumnCode {
  std::string name;
  int source = 0;  // the column's index in the file
  bool numeric = true;
  double mean = 0, stddev = 1;          // numeric
  bool indicator = false;               // numeric: a "<name>_missing" feature follows
  std::vector<std::string> categories;  // text: one feature each, in byte order
};

struct TableEncoding {
  std::vector<ColumnCode> columns;  // the feature columns, in file order
  int label = 0;                    // the label's column in the training file
  std::vector<std::string> classes;
  double target_mean = 0, target_stddev = 1;

  int features() const;
  std::vector<std::string> FeatureNames() const;
};

// `classes_from` (same columns; default `train`): the rows whose labels
// are the classes, so that a test split carved from the same file may hold
// a class too rare to land in the training rows.
Result<TableEncoding> FitTable(const CsvTable& train, const TableOptions& options,
                               const CsvTable* classes_from = nullptr);

// Rows to predict from a file without a header (columns named by place, c1,
// c2, ...) may leave out the label column; then the columns after it sit
// one place left of their training names. This names them as in training,
// or says the rows have neither the training file's width nor one less.
Status NameHeaderlessRows(const TableEncoding& encoding, const TableOptions& options,
                          CsvTable* rows);

// Encodes every row of `table` (the training file or a test file with the
// same columns, in any order).
Result<Examples> EncodeTable(const CsvTable& table, const TableEncoding& encoding,
                             const TableOptions& options);

}  // namespace sweep::nn
