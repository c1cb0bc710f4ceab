// TPE's good/bad split for studies with several objectives or with outcome
// constraints, as Optuna 5's TPESampler makes it (MOTPE: Ozaki et al.,
// GECCO 2020 and JAIR 2022; constraints: Optuna's constrained TPE):
//
// - Feasible trials first. With several objectives they are ranked by
//   non-dominated sorting: whole fronts go to the good group while they
//   fit, and the front that does not fit gives its remaining places to the
//   points that add the most hypervolume (greedy hypervolume subset
//   selection). With one objective, by value.
// - Infeasible trials fill the good group only when too few are feasible,
//   least violation first; the others are bad.
// - Every good trial weighs the same in l(x) with several objectives, as in
//   Optuna 5 (Optuna 3 weighted them by hypervolume contribution; on
//   bench/search/mo.py's problems equal weights did as well or better on
//   five of seven).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tuner/trial_table.h"

namespace sweep {

struct SplitPoint {
  std::vector<double> f;  // objectives, minimised (goals applied)
  double violation = 0;   // 0: feasible
};

struct TpeSplit {
  std::vector<size_t> good, bad;  // indices into the points, ascending
};

// `n_good` of the points go to the good group (at most all of them).
TpeSplit SplitForTpe(const std::vector<SplitPoint>& points, size_t n_good);

// The completed trials of `all` with every objective split as SplitForTpe
// does, the stopped ones (their values partial) bad; `goals` holds each objective's sign
// (-1: maximised). `what` says so for `sweep why`.
struct FinishedSplit {
  std::vector<const Trial*> good, bad;  // in the order of `all`
  std::string what;
};
FinishedSplit SplitFinishedTrials(const std::vector<const Trial*>& all,
                                  const std::vector<double>& goals, int64_t n_good);

// Optuna's reference point for a set of minimised points: each objective's
// worst value times 1.1 (0.9 when negative), EPS where that is 0.
std::vector<double> ReferencePoint(const std::vector<std::vector<double>>& points);

}  // namespace sweep
