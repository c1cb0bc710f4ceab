// Parameter importance by PED-ANOVA (Watanabe, Bansal and Hutter, IJCAI
// 2023): how differently a parameter is distributed among the best trials
// than among all of them, as the Pearson divergence between the two
// densities. It needs no model and runs in time linear in the trials, so it
// answers at once for 10,000 trials; docs/dashboard.md says why it was
// chosen over fANOVA and what it does not see (interactions).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "proto/sweep.pb.h"
#include "storage/reader.h"

namespace sweep {

struct ParamImportance {
  std::string name;
  double importance = 0;  // the divergence over the sum of all divergences
  double divergence = 0;  // sum over the grid of p_all * (p_top / p_all - 1)^2
  int64_t trials = 0;     // trials that have the parameter (conditional ones may not)
};

struct Importance {
  double quantile = 0.1;  // the top fraction of completed trials compared with all
  int64_t trials = 0;     // the trials used (below)
  int64_t top = 0;        // of them, the best ones
  // Used: completed trials with a finite objective, and trials stopped at
  // the full budget (the most steps a completed trial reached: a hard time
  // limit's, a PBT member's), whose values are as comparable. Left out:
  // trials stopped earlier, whose last values are at fewer steps.
  int64_t completed = 0, stopped_used = 0, stopped_left_out = 0;
  std::optional<int64_t> full_step;
  std::vector<ParamImportance> params;  // most important first; empty below 4 trials
};

// Completed trials only; constant parameters are left out.
Importance PedAnova(const pb::Study& spec, const std::vector<TrialView>& trials,
                    double quantile = 0.1);

}  // namespace sweep
