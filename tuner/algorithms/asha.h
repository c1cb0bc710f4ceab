// Asynchronous successive halving (Li et al., MLSys 2020), stopping variant,
// and the rungs it decides at (also shown by `sweep plan`).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "proto/sweep.pb.h"
#include "tuner/scheduler.h"

namespace sweep {

// Wraps `sampling`, which proposes the trials; ASHA only decides reports.
std::unique_ptr<Scheduler> MakeAsha(const pb::Study& study, std::unique_ptr<Scheduler> sampling);

// ASHA's rungs for a study: min_resource * eta^k below max_resource.
std::vector<int64_t> AshaRungs(const pb::Study& study);

}  // namespace sweep
