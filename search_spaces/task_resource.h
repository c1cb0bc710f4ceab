// The resource a task runs, in the units every algorithm counts: synthetic
// steps or training epochs. Shared by validation, the algorithms and `plan`.
#pragma once

#include <cstdint>

#include "proto/sweep.pb.h"

namespace sweep {

// The resource a trial runs: synthetic steps or training epochs.
int64_t TaskResource(const pb::Task& task);

}  // namespace sweep
