// `type: gp` and `type: auto`: proposals from a Gaussian process
// (gp_model.h) by log expected improvement (gp_acquisition.h), and auto's
// switch to TPE (auto_choice.h).
//
// Like TPE's, each proposal is a pure function of (seed, trial number, the
// trials the table holds when it is made): the completed trials are the
// data; trials still running or queued enter at the model's own prediction
// (the Kriging believer), so the variance there shrinks and parallel
// runners spread out; failed and stopped trials are left out. A restarted
// tuner proposes what an uninterrupted one would.
#pragma once

#include <memory>

#include "proto/sweep.pb.h"
#include "search_spaces/space.h"
#include "tuner/algorithms/proposer.h"
#include "tuner/scheduler.h"
#include "tuner/trial_table.h"

namespace sweep {

// The GP's proposals alone: quasi-random (Halton) points until
// n_startup_trials trials have completed, then the GP's.
std::unique_ptr<Proposer> MakeGpProposer(const pb::Study& study, const SearchSpace& space,
                                         const TrialTable* trials);

// `algorithm: {type: gp}` or `{type: auto}`: max_trials proposals (plus
// trials copied by --from) from the GP, or as ChooseAuto says. `created`
// and `consumed` as for sampling.
std::unique_ptr<Scheduler> MakeGpOrAuto(const pb::Study& study, const SearchSpace& space,
                                        const TrialTable* trials, int64_t created,
                                        int64_t consumed);

}  // namespace sweep
