// The tuner's look at a train task's own data files (task.train.data)
// before any trial runs: a file that does not parse fails the run (and
// `sweep validate`) with the message a runner would fail its trials with.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

// Loads the study's data as a runner would, and says what it found in
// *summary ("120 training examples, 30 test; 4 features; 3 classes: ...").
// A file this machine does not have is an error when `required` (local
// runners would read it here), else *summary says so and the rest is not
// checked. Studies without their own data: Ok, *summary empty.
Status CheckStudyData(const pb::Study& study, bool required, std::string* summary);

// What every trial needs of a table of `examples` training rows, checked
// once instead of failing each trial: a validation split (the study's, else
// `default_validation`) that leaves rows to train on, and a smallest batch
// size (searched, fixed or default) that fits in them.
Status CheckSplits(const pb::Study& study, int default_validation, int64_t examples);

}  // namespace sweep
