// Model-based proposals: TPE (Bergstra et al., NeurIPS 2011, as Optuna 5's
// TPESampler does it) and BOHB's proposals (Falkner et al., ICML 2018).
//
// Each proposal is a pure function of (seed, trial number, the trials the
// table holds when it is made): finished trials are split into good and bad
// by the objective, trials still running or queued count as bad (the
// constant liar, so parallel runners do not get the same point), failed
// ones are left out. A restarted tuner has the same table once it has
// loaded the database, so it proposes what an uninterrupted one would.
#pragma once

#include <memory>

#include "proto/sweep.pb.h"
#include "search_spaces/space.h"
#include "tuner/algorithms/proposer.h"
#include "tuner/scheduler.h"
#include "tuner/trial_table.h"

namespace sweep {

// `algorithm: {type: tpe}`: quasi-random (Halton) points until
// n_startup_trials trials have completed or stopped, then TPE. `trials` is
// the study's table (it must outlive the scheduler); `created` and
// `consumed` as for sampling.
std::unique_ptr<Scheduler> MakeTpe(const pb::Study& study, const SearchSpace& space,
                                   const TrialTable* trials, int64_t created, int64_t consumed);

// TPE's proposals alone, for `type: auto` once it has moved on from the GP.
std::unique_ptr<Proposer> MakeTpeProposer(const pb::Study& study, const SearchSpace& space,
                                          const TrialTable* trials);

// BOHB's proposer, for Hyperband to wrap: a random_fraction of proposals
// are random, the others come from a TPE model of the results at the
// largest rung step with at least min_points_in_model results (reports
// reach it through Scheduler::Observe).
std::unique_ptr<Scheduler> MakeBohbProposer(const pb::Study& study, const SearchSpace& space,
                                            const TrialTable* trials, int64_t created);

}  // namespace sweep
