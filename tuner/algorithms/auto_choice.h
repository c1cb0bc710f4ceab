// What `type: auto` uses for a study, decided from the study file alone (so
// `sweep plan` says it before anything runs): TPE for a conditional space,
// which the GP does not model; otherwise the GP, which learned faster on
// every benchmark table and function, for the first kAutoGpTrials trials,
// and TPE after them, where the GP's cost grows (bench/RESULTS.md).
#pragma once

#include <cstdint>
#include <string>

#include "proto/sweep.pb.h"

namespace sweep {

// Up to this many trials a numeric space's proposals come from the GP;
// later ones from TPE (the GP's cost grows as the cube of the trials).
constexpr int64_t kAutoGpTrials = 200;

struct AutoChoice {
  // Trials 0 .. gp_trials - 1 are proposed by the GP, later ones by TPE
  // (0: TPE throughout).
  int64_t gp_trials = 0;
  std::string reason;  // one sentence, for `sweep plan` and `sweep why`
};

// `study` as ValidateStudy returns it.
AutoChoice ChooseAuto(const pb::Study& study);

}  // namespace sweep
