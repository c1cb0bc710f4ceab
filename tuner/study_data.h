// The tuner's look at a train task's own data files (task.train.data)
// before any trial runs: a file that does not parse fails the run (and
// `sweep validate`) with the message a runner would fail its trials with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

// What the tuner found in the study's data before any trial runs.
struct StudyData {
  // "120 training examples, 30 test; 4 features; 3 classes: ...", or that
  // only remote runners may have the file; empty without data of its own.
  std::string summary;
  // What looks like a mistake but may be meant, for `sweep validate` and the
  // tuner's log: a numeric label with many values, taken as classes; a
  // searched batch size that only some of its values leave too large.
  std::vector<std::string> hints;
};

// Loads the study's data as a runner would. A file this machine does not
// have is an error when `required` (local runners would read it here), else
// the summary says so and the rest is not checked.
Result<StudyData> CheckStudyData(const pb::Study& study, bool required);

// What every trial needs of a table of `examples` training rows, checked
// once instead of failing each trial: a validation split (the study's, else
// `default_validation`) that leaves rows to train on, and a smallest batch
// size (searched, fixed or default) that fits in them. A searched batch size
// whose largest values do not fit adds a hint.
Status CheckSplits(const pb::Study& study, int default_validation, int64_t examples,
                   std::vector<std::string>* hints = nullptr);

}  // namespace sweep
