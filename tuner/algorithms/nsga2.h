// NSGA-II (Deb, Pratap, Agarwal and Meyarivan, IEEE TEC 2002) for studies
// with several objectives (or one, with constraints): `algorithm: {type:
// nsga2}`.
//
// Trial k belongs to generation k / population. Generation 0 is the
// Halton sequence's first points. A later trial's parents come by binary
// tournament (constrained Pareto rank, then crowding distance) from the
// elite: the best `population` completed trials of the earlier generations,
// whole fronts first and the last front by crowding distance, which is
// NSGA-II's (mu + lambda) selection over everything finished so far. Its
// point is their child: simulated binary crossover (SBX) for numbers,
// a uniform swap for categoricals, then each parameter redrawn with
// probability mutation_prob.
//
// A generation never waits: a trial is proposed as soon as a runner is
// free, from the earlier generations' trials finished by then (those still
// running join the elite once they finish). Each proposal is a pure
// function of (seed, trial number, the trials the table holds), so a
// restarted tuner proposes what an uninterrupted one would have.
#pragma once

#include <memory>

#include "proto/sweep.pb.h"
#include "search_spaces/space.h"
#include "tuner/scheduler.h"
#include "tuner/trial_table.h"

namespace sweep {

// `trials`: the study's table (it must outlive the scheduler).
std::unique_ptr<Scheduler> MakeNsga2(const pb::Study& study, const SearchSpace& space,
                                     const TrialTable* trials, int64_t created);

}  // namespace sweep
