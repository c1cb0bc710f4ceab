// The tuner's look at a train task's own data files (task.train.data)
// before any trial runs: a file that does not parse fails the run (and
// `sweep validate`) with the message a runner would fail its trials with.
#pragma once

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

}  // namespace sweep
