// A cross-validated trial's checkpoint (task.train.folds): the kept model's
// checkpoint, then each fold's, in one blob, so that the trial resumes with
// every model where it was. A trial of one model keeps its model's
// checkpoint as it is.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace sweep {

// `parts` as one blob: the parts as they are when there is one.
std::string PackCheckpoints(const std::vector<std::string>& parts);

// The `count` parts PackCheckpoints made (count 1: the blob itself). A blob
// of another count, truncated or not made by it is Corruption; each part
// checks its own bytes when loaded.
Result<std::vector<std::string>> UnpackCheckpoints(const std::string& blob, size_t count);

}  // namespace sweep
