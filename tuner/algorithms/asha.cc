// ASHA, stopping variant: a trial reaching rung k continues if it is in the
// top 1/eta of all results recorded so far at that rung (at least the best
// one continues), and otherwise stops. Nothing waits for stragglers.
#include "tuner/algorithms/asha.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/json.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "common/pareto.h"
#include "tuner/scheduler.h"

namespace sweep {

std::vector<int64_t> AshaRungs(const pb::Study& study) {
  const pb::AshaConfig& c = study.algorithm().asha();
  int64_t r = c.min_resource();
  int64_t max = c.max_resource();
  double eta = c.reduction_factor();
  std::vector<int64_t> rungs;
  for (double x = static_cast<double>(r); x < static_cast<double>(max) - 1e-9; x *= eta) {
    int64_t step = static_cast<int64_t>(std::llround(x));
    if (rungs.empty() || step > rungs.back()) rungs.push_back(step);
  }
  return rungs;
}

namespace {

class Asha : public Scheduler {
 public:
  Asha(const pb::Study& study, std::unique_ptr<Scheduler> sampling)
      : base_(std::move(sampling)),
        rungs_(AshaRungs(study)),
        maximize_(PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE),
        metric_(PrimaryObjective(study).metric()) {
    const pb::AshaConfig& c = study.algorithm().asha();
    eta_ = c.reduction_factor();
    grace_ = c.grace_period();
    values_.resize(rungs_.size());
    points_.resize(rungs_.size());
    if (HasSeveralObjectives(study)) {
      goals_ = GoalSigns(ObjectivesOf(study));
      for (const pb::Objective& o : ObjectivesOf(study)) metrics_.push_back(o.metric());
    }
  }

  // Multi-objective ASHA (Schmucker et al., 2021): at a rung, the results
  // so far are ranked by non-dominated sorting, a front's members by
  // crowding distance (the least crowded first); the top 1/eta continue.
  Action OnReportAll(int64_t number, int64_t step, const std::vector<double>& objectives) override {
    if (goals_.empty() || objectives.size() != goals_.size())
      return OnReport(number, step, objectives.empty() ? NAN : objectives[0]);
    base_->OnReport(number, step, objectives[0]);
    auto it = std::find(rungs_.begin(), rungs_.end(), step);
    if (it == rungs_.end() || step < grace_) return Action{};
    size_t k = static_cast<size_t>(it - rungs_.begin());
    auto done = decided_.find({k, number});
    if (done != decided_.end()) return done->second;
    const std::string where = "rung " + std::to_string(k) + " (step " + std::to_string(step) + ")";
    ParetoPoint p;
    for (size_t j = 0; j < goals_.size(); ++j) {
      if (!std::isfinite(objectives[j])) {
        return decided_[{k, number}] =
                   Action{Decision::kStop, "stopped at " + where + ": " + metrics_[j] + " is " +
                                               ScreenNumber(objectives[j])};
      }
      p.f.push_back(objectives[j] * goals_[j]);
    }
    points_[k].emplace_back(number, std::move(p));
    return decided_[{k, number}] = RankAtRung(k, number, where, objectives);
  }

  std::optional<TrialSpec> NextTrial() override { return base_->NextTrial(); }
  bool Exhausted() const override { return base_->Exhausted(); }
  std::optional<int64_t> Planned() const override { return base_->Planned(); }
  std::vector<int64_t> DecisionSteps(int64_t) const override {
    std::vector<int64_t> out;
    for (int64_t r : rungs_) {
      if (r >= grace_) out.push_back(r);
    }
    return out;
  }

  std::optional<Action> DecisionAt(int64_t number, int64_t step) const override {
    auto it = std::find(rungs_.begin(), rungs_.end(), step);
    if (it == rungs_.end()) return std::nullopt;
    auto done = decided_.find({static_cast<size_t>(it - rungs_.begin()), number});
    if (done == decided_.end()) return std::nullopt;
    return done->second;
  }

  Action RankAtRung(size_t k, int64_t number, const std::string& where,
                    const std::vector<double>& objectives) const {
    const auto& at = points_[k];
    std::vector<ParetoPoint> points;
    for (const auto& [n, p] : at) points.push_back(p);
    // The results in promotion order: front by front, each least crowded first.
    std::vector<std::pair<size_t, size_t>> order;  // (front, index)
    std::vector<std::vector<size_t>> fronts = NonDominatedFronts(points);
    size_t place = 0, front = 0;
    for (size_t r = 0; r < fronts.size(); ++r) {
      std::vector<double> crowding = CrowdingDistances(points, fronts[r]);
      std::vector<size_t> idx(fronts[r].size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::stable_sort(idx.begin(), idx.end(),
                       [&](size_t a, size_t b) { return crowding[a] > crowding[b]; });
      for (size_t i : idx) {
        if (at[fronts[r][i]].first == number) {
          front = r;
          place = order.size();
        }
        order.push_back({r, fronts[r][i]});
      }
    }
    const int64_t n = static_cast<int64_t>(points.size());
    const int64_t keep =
        std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(n) / eta_)));
    std::string values;
    for (size_t j = 0; j < metrics_.size(); ++j)
      values += (j ? ", " : "") + metrics_[j] + " " + ScreenNumber(objectives[j]);
    const std::string tail = ": " + values + "; front " + std::to_string(front) + " of " +
                             std::to_string(fronts.size()) + ", place " +
                             std::to_string(place + 1) + " of " + std::to_string(n) +
                             " by Pareto rank and crowding; the top " + std::to_string(keep) +
                             " continue";
    return static_cast<int64_t>(place) < keep
               ? Action{Decision::kContinue, "promoted at " + where + tail, std::nullopt}
               : Action{Decision::kStop, "stopped at " + where + tail, std::nullopt};
  }

  Action OnReport(int64_t number, int64_t step, double value) override {
    base_->OnReport(number, step, value);
    auto it = std::find(rungs_.begin(), rungs_.end(), step);
    if (it == rungs_.end() || step < grace_) return Action{};
    size_t k = static_cast<size_t>(it - rungs_.begin());
    if (!std::isfinite(value)) {
      // Kept, so that a re-run of the step (DecisionAt) is stopped again.
      return decided_[{k, number}] =
                 Action{Decision::kStop, "stopped at rung " + std::to_string(k) + " (step " +
                                             std::to_string(step) + "): " + metric_ + " is " +
                                             ScreenNumber(value)};
    }
    // A replayed report, or a re-run trial reaching the rung again, gets the
    // decision it got the first time.
    auto done = decided_.find({k, number});
    if (done != decided_.end()) return done->second;
    auto& v = values_[k];
    v.insert(std::upper_bound(v.begin(), v.end(), value,
                              [&](double a, double b) { return Better(a, b); }),
             value);
    int64_t n = static_cast<int64_t>(v.size());
    int64_t rank = 1 + static_cast<int64_t>(std::count_if(
                           v.begin(), v.end(), [&](double x) { return Better(x, value); }));
    int64_t keep =
        std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(n) / eta_)));
    double cutoff = v[static_cast<size_t>(keep - 1)];
    const auto [value_text, cutoff_text] = ScreenNumbersApart(value, cutoff);
    std::string where = "rung " + std::to_string(k) + " (step " + std::to_string(step) +
                        "): " + metric_ + " " + value_text;
    std::string tail = ", rank " + std::to_string(rank) + " of " + std::to_string(n);
    Action a =
        rank <= keep
            ? Action{Decision::kContinue,
                     "promoted at " + where + " within cutoff " + cutoff_text + tail}
            : Action{Decision::kStop, "stopped at " + where + (maximize_ ? " below" : " above") +
                                          " cutoff " + cutoff_text + tail};
    decided_[{k, number}] = a;
    return a;
  }

 private:
  bool Better(double a, double b) const { return maximize_ ? a > b : a < b; }

  std::unique_ptr<Scheduler> base_;
  std::vector<int64_t> rungs_;
  bool maximize_;
  std::string metric_;
  double eta_ = 3;
  int64_t grace_ = 1;
  std::vector<std::vector<double>> values_;  // per rung, best first
  // Several objectives: each one's sign (-1: maximised) and metric, and per
  // rung the (trial number, objectives minimised) recorded there.
  std::vector<double> goals_;
  std::vector<std::string> metrics_;
  std::vector<std::vector<std::pair<int64_t, ParetoPoint>>> points_;
  std::map<std::pair<size_t, int64_t>, Action> decided_;  // (rung, trial number) -> decision
};

}  // namespace

std::unique_ptr<Scheduler> MakeAsha(const pb::Study& study, std::unique_ptr<Scheduler> sampling) {
  return std::make_unique<Asha>(study, std::move(sampling));
}

}  // namespace sweep
