// Sampling scheduler (random, grid, quasi-random) and the factory.
#include "tuner/scheduler.h"

#include "tuner/algorithms/asha.h"
#include "tuner/algorithms/gp.h"
#include "tuner/algorithms/hyperband.h"
#include "tuner/algorithms/median.h"
#include "tuner/algorithms/nsga2.h"
#include "tuner/algorithms/pbt.h"
#include "tuner/algorithms/tpe.h"

namespace sweep {

namespace {

class SamplingScheduler : public Scheduler {
 public:
  SamplingScheduler(const pb::Study& study, const SearchSpace& space, int64_t created,
                    int64_t consumed)
      : sampler_(MakeSampler(study, space)), next_(created), consumed_(consumed) {
    planned_ = PlannedTrials(study, *sampler_);
    if (study.algorithm().has_budget()) budget_ = study.algorithm().budget();
  }

  std::optional<TrialSpec> NextTrial() override {
    if (Exhausted()) return std::nullopt;
    auto point = sampler_->Point(next_);
    if (!point) {
      planned_ = next_;
      return std::nullopt;
    }
    TrialSpec spec;
    spec.number = next_++;
    *spec.params.mutable_params() = std::move(*point);
    return spec;
  }
  bool Exhausted() const override {
    return next_ >= planned_ || (budget_ && consumed_ >= *budget_);
  }
  std::optional<int64_t> Planned() const override { return planned_; }
  Action OnReport(int64_t, int64_t, double) override {
    ++consumed_;
    return Action{};
  }

 private:
  std::unique_ptr<Sampler> sampler_;
  int64_t next_;
  int64_t planned_;
  int64_t consumed_;
  std::optional<int64_t> budget_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeSamplingScheduler(const pb::Study& study, const SearchSpace& space,
                                                 int64_t created, int64_t consumed) {
  return std::make_unique<SamplingScheduler>(study, space, created, consumed);
}

std::unique_ptr<Scheduler> MakeScheduler(const pb::Study& study, const SearchSpace& space,
                                         int64_t created, int64_t consumed,
                                         const TrialTable* trials) {
  switch (study.algorithm().type()) {
    case pb::ALGORITHM_TYPE_PBT:
      return MakePbt(study, space, created);
    case pb::ALGORITHM_TYPE_TPE:
      return MakeTpe(study, space, trials, created, consumed);
    case pb::ALGORITHM_TYPE_GP:
    case pb::ALGORITHM_TYPE_AUTO:
      return MakeGpOrAuto(study, space, trials, created, consumed);
    case pb::ALGORITHM_TYPE_BOHB:
      return MakeHyperband(study, MakeBohbProposer(study, space, trials, created), created);
    case pb::ALGORITHM_TYPE_NSGA2:
      return MakeNsga2(study, space, trials, created);
    default:
      break;
  }
  auto sampling = MakeSamplingScheduler(study, space, created, consumed);
  switch (study.algorithm().type()) {
    case pb::ALGORITHM_TYPE_ASHA:
      return MakeAsha(study, std::move(sampling));
    case pb::ALGORITHM_TYPE_MEDIAN:
      return MakeMedianStopping(study, std::move(sampling));
    case pb::ALGORITHM_TYPE_HYPERBAND:
      return MakeHyperband(study, std::move(sampling), created);
    default:
      return sampling;
  }
}

namespace {

// Model-based search over the study's own proposals.
bool ModelBased(const pb::Study& study) {
  pb::AlgorithmType type = study.algorithm().type();
  return type == pb::ALGORITHM_TYPE_TPE || type == pb::ALGORITHM_TYPE_GP ||
         type == pb::ALGORITHM_TYPE_AUTO;
}

}  // namespace

int64_t CopiedTrials(const TrialTable* trials) {
  int64_t copied = 0;
  if (trials) {
    for (const auto& [id, t] : trials->all())
      if (IsFinished(t.status) && t.attempts == 0) ++copied;
  }
  return copied;
}

AlgorithmTraits TraitsOf(const pb::Study& study) {
  AlgorithmTraits t;
  t.learns_from_copied_trials = ModelBased(study);
  t.decisions_depend_on_max_trials = study.algorithm().type() == pb::ALGORITHM_TYPE_PBT;
  pb::AlgorithmType type = study.algorithm().type();
  t.runs_failed_trials_again =
      ModelBased(study) || type == pb::ALGORITHM_TYPE_NSGA2 || type == pb::ALGORITHM_TYPE_RANDOM ||
      type == pb::ALGORITHM_TYPE_GRID || type == pb::ALGORITHM_TYPE_QUASIRANDOM;
  t.takes_enqueued_trials = ModelBased(study) || type == pb::ALGORITHM_TYPE_RANDOM ||
                            type == pb::ALGORITHM_TYPE_QUASIRANDOM ||
                            type == pb::ALGORITHM_TYPE_ASHA || type == pb::ALGORITHM_TYPE_MEDIAN;
  return t;
}

std::optional<int64_t> PlannedTrialCount(const pb::Study& study, int64_t copied) {
  auto space = SearchSpace::Create(study);
  if (!space.ok()) return std::nullopt;
  std::optional<int64_t> planned = MakeScheduler(study, *space, 0, 0)->Planned();
  if (planned && ModelBased(study)) *planned += copied;
  return planned;
}

}  // namespace sweep
