// Sampling scheduler: random, grid and quasi-random search.
#include "tuner/scheduler.h"

namespace sweep {

namespace {

class SamplingScheduler : public Scheduler {
 public:
  SamplingScheduler(const pb::Study& study, const SearchSpace& space, int64_t created)
      : sampler_(MakeSampler(study, space)), next_(created) {
    planned_ = PlannedTrials(study, *sampler_);
  }

  std::optional<TrialSpec> NextTrial() override {
    if (next_ >= planned_) return std::nullopt;
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
  bool Exhausted() const override { return next_ >= planned_; }
  std::optional<int64_t> Planned() const override { return planned_; }
  Action OnReport(int64_t, int64_t, double) override { return Action{}; }

 private:
  std::unique_ptr<Sampler> sampler_;
  int64_t next_;
  int64_t planned_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeSamplingScheduler(const pb::Study& study, const SearchSpace& space,
                                                 int64_t created) {
  return std::make_unique<SamplingScheduler>(study, space, created);
}

}  // namespace sweep
