// What may change in a study file between runs of the same study. A study
// resumes with a changed definition only when every recorded trial and
// decision stays valid: raising max_trials or budget (more trials of the
// same search; not PBT's max_trials, which its past generations were
// decided by), or changing how trials run (max_concurrent, max_retries,
// the stall timeout, a synthetic task's step_ms, a train task's threads and
// data_dir, a command's timeout_s and grace_s). Anything else (the search
// space, the objective, the algorithm's settings, the task itself) is
// refused, each difference named by its path, parameters by name
// (`parameters.lr.max: 0.1 -> 0.2`).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

// The accepted differences from `stored` to `now` ("algorithm.max_trials:
// 12 -> 20"), empty when the two are the same; FailedPrecondition naming
// every refused difference and what may change instead. Both have their
// defaults resolved.
// `results`: whether any trial completed or was stopped with a value. Before
// one has, nothing recorded means anything yet, and the objective and the task
// may change too (the fix after a study's first trials all failed: a metric
// misspelt, a wrong argument); the parameters, which the failed trials were
// drawn from, may not.
Result<std::vector<std::string>> CompareStudies(const pb::Study& stored, const pb::Study& now,
                                                bool results = true);

}  // namespace sweep
