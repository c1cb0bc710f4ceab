// What `type: auto` uses for a study, decided from the study file alone (so
// `sweep plan` says it before anything runs): the GP where it learns
// faster, TPE where the GP models the space badly or costs too much.
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
