// Hyperband (Li et al., JMLR 2018): brackets s = s_max..0, each a round of
// synchronous successive halving. A trial that reaches a rung pauses (its
// runner is freed) until every trial of the rung has reported or ended; then
// the best n_{i+1} resume from their checkpoints and the rest stop. Trial
// numbers map to brackets by the plan, so brackets overlap freely when
// runners are idle and the state is rebuilt by replaying reports.
#include "tuner/algorithms/hyperband.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "common/json.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "common/study_defaults.h"
#include "tuner/algorithms/cohort.h"
#include "tuner/scheduler.h"

namespace sweep {

std::vector<Rung> HyperbandBracket(int s, int s_max, double R, double eta, int64_t min_resource) {
  double B = (s_max + 1) * R;
  auto n = static_cast<int64_t>(std::ceil(B / R * std::pow(eta, s) / (s + 1) - 1e-9));
  double r = R * std::pow(eta, -s);
  std::vector<Rung> rungs;
  for (int i = 0; i <= s; ++i) {
    Rung rung;
    rung.trials =
        static_cast<int64_t>(std::floor(static_cast<double>(n) * std::pow(eta, -i) + 1e-9));
    rung.resource =
        i == s ? static_cast<int64_t>(std::llround(R * static_cast<double>(min_resource)))
               : std::max<int64_t>(
                     1, std::llround(r * std::pow(eta, i) * static_cast<double>(min_resource)));
    if (!rungs.empty() && rung.resource <= rungs.back().resource)
      continue;  // rounding collapsed it
    rungs.push_back(rung);
  }
  return rungs;
}

HyperbandPlan PlanHyperband(const pb::Study& study) {
  const pb::Algorithm& alg = study.algorithm();
  const pb::HyperbandConfig& c = alg.hyperband();
  int64_t min_r = c.min_resource();
  int64_t max_r = c.max_resource();
  double eta = c.reduction_factor();
  double R = static_cast<double>(max_r) / static_cast<double>(std::max<int64_t>(1, min_r));
  int s_max = static_cast<int>(std::floor(std::log(R) / std::log(eta) + 1e-9));
  HyperbandPlan plan;
  bool capped = alg.has_max_trials() || alg.has_budget();
  // Without max_trials or budget: one full iteration (s_max..0).
  for (int iteration = 0; iteration < 10000; ++iteration) {
    for (int s = s_max; s >= 0; --s) {
      Bracket b;
      b.s = s;
      b.rungs = HyperbandBracket(s, s_max, R, eta, min_r);
      int64_t done = 0;
      for (const Rung& r : b.rungs) {
        b.cost += r.trials * (r.resource - done);
        done = r.resource;
      }
      b.first_trial = plan.total_trials;
      int64_t n = b.rungs.front().trials;
      if (alg.has_max_trials() && plan.total_trials + n > alg.max_trials()) {
        plan.note = "the next bracket (s=" + std::to_string(s) + ", " + std::to_string(n) +
                    " trials) would pass max_trials " + std::to_string(alg.max_trials());
        return plan;
      }
      if (alg.has_budget() && plan.total_resource + b.cost > alg.budget()) {
        plan.note = "the next bracket (s=" + std::to_string(s) + ", " + std::to_string(b.cost) +
                    " steps) would pass budget " + std::to_string(alg.budget());
        return plan;
      }
      plan.total_trials += n;
      plan.total_resource += b.cost;
      plan.brackets.push_back(std::move(b));
    }
    if (!capped) {
      plan.note = "one iteration (set max_trials or budget to repeat the brackets)";
      return plan;
    }
  }
  plan.note = "capped at 10000 iterations";
  return plan;
}

namespace {

// Bounds on what PlanHyperband and the scheduler build: extreme settings that
// validation accepts (reduction_factor 1.0001, max_trials 1e8) would
// otherwise ask for billions of rungs or trial numbers.
constexpr int kMaxBrackets = 100;
constexpr double kMaxPlanRungs = 1e6;
constexpr double kMaxPlanTrials = 2e6;

// Whole numbers as digits (doubles here hold counts up to ~1e300).
std::string Count(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

// The plan's size from the settings alone, in doubles (no overflow), before
// any table is built.
Status BoundPlan(const pb::Study& study) {
  const pb::Algorithm& alg = study.algorithm();
  const pb::HyperbandConfig& c = alg.hyperband();
  double eta = c.reduction_factor();
  double R = static_cast<double>(c.max_resource()) /
             static_cast<double>(std::max<int64_t>(1, c.min_resource()));
  if (!(eta > 1) || !(R >= 1)) return Status::Ok();  // validation reports these
  double s_max = std::floor(std::log(R) / std::log(eta) + 1e-9);
  auto fail = [](const std::string& what) {
    return Status::FailedPrecondition("algorithm: the hyperband plan would have " + what +
                                      "; raise reduction_factor or min_resource, or lower "
                                      "max_trials or budget (see: sweep plan)");
  };
  if (s_max + 1 > kMaxBrackets) {
    return fail(Count(s_max + 1) + " brackets per iteration (at most " +
                std::to_string(kMaxBrackets) + ")");
  }
  double trials = 0, cost = 0, rungs = 0;
  for (int s = static_cast<int>(s_max); s >= 0; --s) {
    double n = std::ceil((s_max + 1) * std::pow(eta, s) / (s + 1) - 1e-9);
    trials += n;
    cost += n;  // a lower bound: every first-rung trial runs a step at least
    rungs += s + 1;
  }
  double iterations = 1;
  if (alg.has_max_trials() || alg.has_budget()) {
    iterations = 10000;
    if (alg.has_max_trials())
      iterations = std::min(iterations, static_cast<double>(alg.max_trials()) / trials + 1);
    if (alg.has_budget())
      iterations = std::min(iterations, static_cast<double>(alg.budget()) / cost + 1);
    iterations = std::ceil(iterations);
  }
  double total_trials = trials * iterations;
  if (alg.has_max_trials())
    total_trials = std::min(total_trials, static_cast<double>(alg.max_trials()));
  if (rungs * iterations > kMaxPlanRungs)
    return fail(Count(rungs * iterations) + " rungs (at most " + Count(kMaxPlanRungs) + ")");
  if (total_trials > kMaxPlanTrials)
    return fail(Count(total_trials) + " trials (at most " + Count(kMaxPlanTrials) + ")");
  return Status::Ok();
}

}  // namespace

Status CheckPlan(const pb::Study& study) {
  if (!UsesHyperbandBrackets(study.algorithm().type())) return Status::Ok();
  RETURN_IF_ERROR(BoundPlan(study));
  HyperbandPlan plan = PlanHyperband(study);
  if (plan.brackets.empty())
    return Status::FailedPrecondition("algorithm: hyperband cannot start: " + plan.note +
                                      "; raise it or lower max_resource (see: sweep plan)");
  return Status::Ok();
}

namespace {

class Hyperband : public Scheduler {
 public:
  Hyperband(const pb::Study& study, std::unique_ptr<Scheduler> sampling, int64_t created)
      : base_(std::move(sampling)),
        plan_(PlanHyperband(study)),
        created_(created),
        maximize_(PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE),
        metric_(PrimaryObjective(study).metric()) {
    for (const Bracket& b : plan_.brackets) {
      State st;
      std::set<int64_t> first;
      for (int64_t k = 0; k < b.rungs.front().trials; ++k) first.insert(b.first_trial + k);
      st.rungs.resize(b.rungs.size());
      st.rungs[0] = Cohort(b.rungs[0].resource, std::move(first));
      for (size_t i = 1; i < b.rungs.size(); ++i) st.rungs[i] = Cohort(b.rungs[i].resource, {});
      state_.push_back(std::move(st));
    }
  }

  std::optional<TrialSpec> NextTrial() override {
    if (created_ >= plan_.total_trials) return std::nullopt;
    auto spec = base_->NextTrial();
    if (spec) created_ = spec->number + 1;
    return spec;
  }
  bool Exhausted() const override {
    if (created_ < plan_.total_trials) return false;
    for (const State& st : state_) {
      for (size_t i = 0; i + 1 < st.rungs.size(); ++i)
        if (!st.rungs[i].resolved()) return false;
    }
    return true;
  }
  std::optional<int64_t> Planned() const override { return plan_.total_trials; }
  // BOHB's proposer learns; random search's does not.
  bool LearnsFromEveryResult() const override { return base_->LearnsFromEveryResult(); }

  std::vector<int64_t> DecisionSteps(int64_t number) const override {
    std::vector<int64_t> out;
    int b = BracketOf(number);
    if (b < 0) return out;
    const auto& rungs = plan_.brackets[static_cast<size_t>(b)].rungs;
    for (size_t i = 0; i + 1 < rungs.size(); ++i) out.push_back(rungs[i].resource);
    return out;
  }

  Action OnReport(int64_t number, int64_t step, double value) override {
    base_->Observe(number, step, value);
    int b = BracketOf(number);
    if (b < 0) return Action{};
    State& st = state_[static_cast<size_t>(b)];
    size_t i = 0;
    while (i + 1 < st.rungs.size() && st.rungs[i].step() != step) ++i;
    if (i + 1 >= st.rungs.size()) return Action{};  // not a decision step
    // A replayed report, or a re-run trial reaching the rung again, gets the
    // decision it got before (a pause may since have been resolved).
    auto done = decided_.find({number, i});
    if (done != decided_.end()) return done->second;
    if (i > 0 && !st.rungs[i - 1].resolved()) {
      // This rung has no members until the rung below resolves. Only a
      // replay meets a report here: a database written before a re-run's
      // report stopped replacing the first (storage keeps it now) can hold
      // a promoted trial's report of the rung below after this one. It
      // counts once the rung below has promoted the trial.
      st.early[i].emplace(number, value);
      return Action{};
    }
    Cohort& rung = st.rungs[i];
    if (!rung.Report(number, value)) return Action{};
    if (rung.Complete()) {
      Resolve(static_cast<size_t>(b), i, number);
      return decided_[{number, i}];
    }
    return decided_[{number, i}] = Wait(static_cast<size_t>(b), i, value);
  }

  void OnEnd(int64_t number, int64_t) override {
    int b = BracketOf(number);
    if (b < 0) return;
    State& st = state_[static_cast<size_t>(b)];
    for (size_t i = 0; i + 1 < st.rungs.size(); ++i) {
      Cohort& rung = st.rungs[i];
      if (rung.resolved() || !rung.End(number)) continue;
      if (rung.Complete()) Resolve(static_cast<size_t>(b), i, -1);
      return;
    }
  }

  std::optional<Action> DecisionAt(int64_t number, int64_t step) const override {
    int b = BracketOf(number);
    if (b < 0) return std::nullopt;
    const auto& rungs = plan_.brackets[static_cast<size_t>(b)].rungs;
    for (size_t i = 0; i + 1 < rungs.size(); ++i) {
      if (rungs[i].resource != step) continue;
      auto it = decided_.find({number, i});
      if (it != decided_.end()) return it->second;
    }
    return std::nullopt;
  }

  std::vector<Directive> TakeDirectives() override { return std::exchange(directives_, {}); }

 private:
  struct State {
    std::vector<Cohort> rungs;
    // Reports of a rung that came before the rung below resolved (a replay
    // of an old database), by rung: trial number -> value.
    std::map<size_t, std::map<int64_t, double>> early;
  };

  // The decision of a trial that reached rung i of bracket b before the rung
  // is complete.
  Action Wait(size_t b, size_t i, double value) const {
    const Cohort& rung = state_[b].rungs[i];
    return Action{Decision::kPause,
                  "paused at rung " + std::to_string(i) + " (step " + std::to_string(rung.step()) +
                      ") of bracket " + std::to_string(plan_.brackets[b].s) + ": " + metric_ + " " +
                      ScreenNumber(value) + ", " + std::to_string(rung.arrived()) + " of " +
                      std::to_string(rung.size()) + " trials of the rung are in"};
  }

  int BracketOf(int64_t number) const {
    const auto& bs = plan_.brackets;
    auto it = std::upper_bound(bs.begin(), bs.end(), number,
                               [](int64_t n, const Bracket& b) { return n < b.first_trial; });
    if (it == bs.begin()) return -1;
    --it;
    if (number >= it->first_trial + it->rungs.front().trials) return -1;
    return static_cast<int>(it - bs.begin());
  }

  // Rung i of bracket b is complete: the best n_{i+1} go on, the rest stop.
  // `reporter` (if any) gets its decision as the reply to its report; the
  // others, paused, get directives.
  void Resolve(size_t b, size_t i, int64_t reporter) {
    State& st = state_[b];
    Cohort& rung = st.rungs[i];
    rung.MarkResolved();
    const Bracket& plan = plan_.brackets[b];
    auto ranked = rung.Ranked(maximize_);
    int64_t finite = std::count_if(ranked.begin(), ranked.end(),
                                   [](const auto& p) { return std::isfinite(p.second); });
    int64_t keep = std::min(plan.rungs[i + 1].trials, finite);
    std::set<int64_t> next;
    std::string where = "rung " + std::to_string(i) + " (step " + std::to_string(rung.step()) +
                        ") of bracket " + std::to_string(plan.s);
    const std::optional<double> cutoff_value =
        keep > 0 ? std::optional<double>(ranked[static_cast<size_t>(keep - 1)].second)
                 : std::nullopt;
    for (size_t k = 0; k < ranked.size(); ++k) {
      auto [number, value] = ranked[k];
      const auto [value_text, cutoff] =
          cutoff_value ? ScreenNumbersApart(value, *cutoff_value)
                       : std::pair<std::string, std::string>(ScreenNumber(value), "none");
      std::string tail = ", rank " + std::to_string(k + 1) + " of " +
                         std::to_string(ranked.size()) + ", top " + std::to_string(keep) +
                         " continue";
      Action a;
      if (static_cast<int64_t>(k) < keep) {
        next.insert(number);
        a = {Decision::kContinue, "promoted at " + where + ": " + metric_ + " " + value_text +
                                      " within cutoff " + cutoff + tail};
      } else {
        std::string side = !std::isfinite(value) ? " (not finite), cutoff "
                           : maximize_           ? " below cutoff "
                                                 : " above cutoff ";
        a = {Decision::kStop,
             "stopped at " + where + ": " + metric_ + " " + value_text + side + cutoff + tail};
      }
      decided_[{number, i}] = a;
      if (number != reporter) directives_.push_back({number, rung.step(), a});
    }
    st.rungs[i + 1] = Cohort(plan.rungs[i + 1].resource, std::move(next));
    // Reports of the next rung that came early count now (non-members'
    // are dropped, as they would have been in order).
    auto early = st.early.find(i + 1);
    if (early != st.early.end()) {
      for (const auto& [number, value] : early->second) {
        if (st.rungs[i + 1].Report(number, value))
          decided_[{number, i + 1}] = Wait(b, i + 1, value);
      }
      st.early.erase(early);
    }
    // Nobody left to wait for (every member failed, or all reported early).
    if (i + 2 < st.rungs.size() && st.rungs[i + 1].Complete()) Resolve(b, i + 1, -1);
  }

  std::unique_ptr<Scheduler> base_;
  HyperbandPlan plan_;
  int64_t created_;
  bool maximize_;
  std::string metric_;
  std::vector<State> state_;
  std::map<std::pair<int64_t, size_t>, Action> decided_;  // (trial number, rung) -> decision
  std::vector<Directive> directives_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeHyperband(const pb::Study& study,
                                         std::unique_ptr<Scheduler> sampling, int64_t created) {
  return std::make_unique<Hyperband>(study, std::move(sampling), created);
}

}  // namespace sweep
