// Every default of a study file, in one place. ValidateStudy writes them into
// the study it accepts, so the algorithms, the tuner and the CLI read each
// field as set, and `sweep validate --print` shows the study as it will run.
// Fields whose absence means "no limit" (max_trials, max_concurrent, budget)
// and a float parameter's step (absent: continuous) stay unset. The train
// task's knobs keep their defaults in common/train_knobs.h, applied per trial.
#pragma once

#include <cstdint>

#include "proto/sweep.pb.h"

namespace sweep {

// The resource a trial runs, in the units every algorithm counts: synthetic
// steps or training epochs, with their defaults where unset.
int64_t TaskResource(const pb::Task& task);

// Hyperband and BOHB: the algorithms that run Hyperband's brackets (and
// read `algorithm.hyperband`).
bool UsesHyperbandBrackets(pb::AlgorithmType type);

// Writes every unset default into `study`. Idempotent; a study stored by an
// earlier version is resolved the same way before it is compared.
void ResolveDefaults(pb::Study* study);

}  // namespace sweep
