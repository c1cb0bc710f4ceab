// The algorithm interface: pure decision makers. A scheduler proposes trials
// and turns each report into a decision; it never touches sockets, files or
// the database, so it is testable with scripted events and rebuilt after a
// crash from what the database holds.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "proto/sweep.pb.h"
#include "search_spaces/samplers.h"

namespace sweep {

enum class Decision { kContinue, kStop };

struct Action {
  Decision decision = Decision::kContinue;
  std::string reason;
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
  virtual Action OnReport(int64_t number, int64_t step, double objective) = 0;
};

// Random, grid and quasi-random search: trial k gets the sampler's point k.
// `created` is how many trials the study already has (for resuming).
std::unique_ptr<Scheduler> MakeSamplingScheduler(const pb::Study& study, const SearchSpace& space,
                                                 int64_t created);

}  // namespace sweep
