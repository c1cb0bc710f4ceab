// Hyperband (Li et al., JMLR 2018): brackets of synchronous successive
// halving; trials pause at a rung until it is complete. Its plan is pure
// arithmetic on the study, shared by the scheduler, validation and `plan`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "tuner/scheduler.h"

namespace sweep {

// Wraps `sampling`, which proposes each trial's parameters. `created` is how
// many trials the study already has.
std::unique_ptr<Scheduler> MakeHyperband(const pb::Study& study,
                                         std::unique_ptr<Scheduler> sampling, int64_t created);

// Hyperband's layout: each bracket's rungs as (trials, resource), with n_i
// and r_i exactly as in the paper, in the order brackets run (s_max..0,
// repeated while max_trials and budget allow).
struct Rung {
  int64_t trials = 0;
  int64_t resource = 0;  // steps a trial has run when it reaches the rung
};
struct Bracket {
  int s = 0;
  std::vector<Rung> rungs;
  int64_t first_trial = 0;  // number of its first trial
  int64_t cost = 0;         // steps run, continuing from checkpoints
};
struct HyperbandPlan {
  std::vector<Bracket> brackets;
  int64_t total_resource = 0;
  int64_t total_trials = 0;
  std::string note;  // why the sequence ends where it does
};
HyperbandPlan PlanHyperband(const pb::Study& study);
// A Hyperband study whose max_trials or budget cannot hold even its first
// bracket is an error, named here (`sweep run`, `validate` and `plan`).
Status CheckPlan(const pb::Study& study);
// One bracket's rungs for R (in units of the minimum resource) and eta.
std::vector<Rung> HyperbandBracket(int s, int s_max, double R, double eta, int64_t min_resource);

}  // namespace sweep
