// The median stopping rule (Golovin et al., 2017).
#pragma once

#include <memory>

#include "proto/sweep.pb.h"
#include "tuner/scheduler.h"

namespace sweep {

// Wraps `sampling`, which proposes the trials; the rule only decides reports.
std::unique_ptr<Scheduler> MakeMedianStopping(const pb::Study& study,
                                              std::unique_ptr<Scheduler> sampling);

}  // namespace sweep
