// The median stopping rule: at step t (past the grace period), a trial stops
// when its best value so far is worse than the median, over the other trials
// that reached step t, of their running averages up to t.
#include "tuner/algorithms/median.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/json.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "tuner/scheduler.h"

namespace sweep {

namespace {

class MedianStopping : public Scheduler {
 public:
  MedianStopping(const pb::Study& study, std::unique_ptr<Scheduler> sampling)
      : base_(std::move(sampling)),
        maximize_(PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE),
        metric_(PrimaryObjective(study).metric()) {
    const pb::MedianConfig& c = study.algorithm().median();
    grace_ = c.grace_period();
    min_trials_ = c.min_trials();
  }

  std::optional<TrialSpec> NextTrial() override { return base_->NextTrial(); }
  bool Exhausted() const override { return base_->Exhausted(); }
  std::optional<int64_t> Planned() const override { return base_->Planned(); }
  bool MayStopAtAnyStep() const override { return true; }

  std::optional<Action> DecisionAt(int64_t number, int64_t step) const override {
    auto it = trials_.find(number);
    if (it == trials_.end() || !it->second.stop || step < it->second.stop_step) return std::nullopt;
    return it->second.stop;
  }

  Action OnReport(int64_t number, int64_t step, double value) override {
    base_->OnReport(number, step, value);
    History& h = trials_[number];
    if (step <= h.last_step) {
      // A replayed report or a re-run: the same decision as the first time.
      return h.stop && step >= h.stop_step ? *h.stop : Action{};
    }
    h.last_step = step;
    h.sum += value;
    h.best = h.count == 0 ? value : (Better(value, h.best) ? value : h.best);
    ++h.count;
    averages_[step][number] = h.sum / static_cast<double>(h.count);
    if (step < grace_) return Action{};
    std::vector<double> others;
    for (const auto& [n, avg] : averages_[step]) {
      if (n != number) others.push_back(avg);
    }
    if (static_cast<int>(others.size()) < min_trials_) return Action{};
    std::sort(others.begin(), others.end());
    size_t m = others.size();
    double median = m % 2 ? others[m / 2] : 0.5 * (others[m / 2 - 1] + others[m / 2]);
    if (!std::isfinite(h.best) || Better(median, h.best)) {
      h.stop_step = step;
      const auto [best_text, median_text] = ScreenNumbersApart(h.best, median);
      h.stop =
          Action{Decision::kStop, "stopped at step " + std::to_string(step) + ": best " + metric_ +
                                      " " + best_text + (maximize_ ? " below" : " above") +
                                      " the median running average " + median_text + " of " +
                                      std::to_string(m) + " other trials"};
      return *h.stop;
    }
    return Action{};
  }

 private:
  struct History {
    int64_t last_step = 0;
    int64_t count = 0;
    double sum = 0, best = 0;
    int64_t stop_step = 0;
    std::optional<Action> stop;
  };
  bool Better(double a, double b) const { return maximize_ ? a > b : a < b; }

  std::unique_ptr<Scheduler> base_;
  bool maximize_;
  std::string metric_;
  int64_t grace_ = 1;
  int min_trials_ = 3;
  std::map<int64_t, History> trials_;
  std::map<int64_t, std::map<int64_t, double>> averages_;  // step -> trial -> running average
};

}  // namespace

std::unique_ptr<Scheduler> MakeMedianStopping(const pb::Study& study,
                                              std::unique_ptr<Scheduler> sampling) {
  return std::make_unique<MedianStopping>(study, std::move(sampling));
}

}  // namespace sweep
