// `sweep run --retry-failed` and `sweep retry`: a study's failed trials run
// again with the same parameters, after the mistake that failed them was
// fixed (storage/study_admin.h writes it).
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "storage/sqlite_store.h"

namespace sweep {

// Re-queues the failed trials of the study named `study.name()` in `store`
// (those numbered `numbers`, or all of them), committed, before a tuner
// opens it; returns how many (0 for a study the database does not hold
// yet). Refused for algorithms whose decisions came from the failed runs
// (AlgorithmTraits::runs_failed_trials_again), naming them.
Result<int64_t> RetryFailed(Store& store, const pb::Study& study,
                            const std::vector<int64_t>& numbers = {});

}  // namespace sweep
