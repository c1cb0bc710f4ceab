// The algorithm interface: pure decision makers. A scheduler proposes trials
// and turns each report into a decision with its reason; it never touches
// sockets, files or the database, so it is tested with scripted events and
// rebuilt after a crash by replaying the reports the database holds.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/sweep.pb.h"
#include "search_spaces/samplers.h"

namespace sweep {

enum class Decision { kContinue, kStop };

struct Action {
  Decision decision = Decision::kContinue;
  std::string reason;  // why, for `sweep why`; empty for routine continues
};

struct TrialSpec {
  int64_t number = 0;  // index of the trial within the study
  pb::ParamSet params;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // The next new trial, or nullopt when none should start now.
  virtual std::optional<TrialSpec> NextTrial() = 0;
  // True once the algorithm will propose no more trials.
  virtual bool Exhausted() const = 0;
  // Total trials the algorithm plans, when known.
  virtual std::optional<int64_t> Planned() const = 0;
  // One report of `objective` at `step` (one unit of resource) of trial
  // `number`. Replaying a report already seen must not change the state.
  virtual Action OnReport(int64_t number, int64_t step, double objective) = 0;
  // Steps after which a runner must wait for the decision (rungs).
  virtual std::vector<int64_t> DecisionSteps() const { return {}; }
};

// Random, grid and quasi-random search: trial k gets the sampler's point k.
// `created` is how many trials the study already has, `consumed` how many
// steps they ran (both for resuming).
std::unique_ptr<Scheduler> MakeSamplingScheduler(const pb::Study& study, const SearchSpace& space,
                                                 int64_t created, int64_t consumed);
// Asynchronous successive halving (Li et al., MLSys 2020), stopping variant.
std::unique_ptr<Scheduler> MakeAsha(const pb::Study& study, std::unique_ptr<Scheduler> sampling);
// The median stopping rule (Golovin et al., 2017).
std::unique_ptr<Scheduler> MakeMedianStopping(const pb::Study& study,
                                              std::unique_ptr<Scheduler> sampling);

// The scheduler a study asks for.
std::unique_ptr<Scheduler> MakeScheduler(const pb::Study& study, const SearchSpace& space,
                                         int64_t created, int64_t consumed);

// ASHA's rungs for a study: min_resource * eta^k below max_resource.
std::vector<int64_t> AshaRungs(const pb::Study& study);

}  // namespace sweep
