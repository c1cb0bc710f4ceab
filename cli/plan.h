// `sweep plan STUDY`: what an algorithm will run, before anything runs:
// Hyperband's brackets and rungs, ASHA's rungs, PBT's generations, and the
// total resource (steps summed over trials).
#pragma once

#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

// `json`: {"brackets": [{"bracket": 4, "rungs": [{"trials": 81, "resource": 1}, ...]}, ...],
// "total_resource": N} for Hyperband; other algorithms give their own keys.
Result<std::string> FormatPlan(const pb::Study& study, bool json);

}  // namespace sweep
