// TPE and BOHB proposals: the history as the model sees it, the good/bad
// split, the groups of parameters that occur together, and the candidates.
#include "tuner/algorithms/tpe.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/json.h"
#include "common/objectives.h"
#include "common/rng.h"
#include "common/values.h"
#include "search_spaces/parameter_constraints.h"
#include "search_spaces/samplers.h"
#include "tuner/algorithms/hyperband.h"
#include "tuner/algorithms/param_codec.h"
#include "tuner/algorithms/parzen.h"
#include "tuner/algorithms/tpe_split.h"

namespace sweep {

namespace {

constexpr uint64_t kTpeSalt = 0x7e9e5a17;
constexpr int64_t kMaxGood = 25;   // Optuna's cap on the good trials
constexpr int kModelAttempts = 8;  // model proposals before uniform draws
constexpr int kMaxAttempts = 64;

// A trial's parameters in the estimators' form, and which are present
// (one char per parameter), computed once per trial.
struct Point {
  std::vector<std::optional<double>> x;  // per parameter
  std::string present;
};

// One trial as the model sees it.
struct Seen {
  int64_t number = 0;
  const Point* p = nullptr;
  double score = 0;    // lower is better (goal applied); NaN: no value
  int64_t step = 0;    // stopped trials: the furthest step
  double weight = -1;  // its weight in l(x) (MOTPE: 1 each); negative: the default
};

// "; good trials by model: gbdt 3, mlp 1" where `model` is searched (the
// model families), so `sweep why` says which family the search favours.
std::string FamiliesOf(const std::vector<Seen>& good, const std::vector<const Trial*>& all) {
  std::map<std::string, int> count;
  std::set<int64_t> numbers;
  for (const Seen& s : good) numbers.insert(s.number);
  for (const Trial* t : all) {
    if (!numbers.count(t->number)) continue;
    for (const auto& p : t->params.params())
      if (p.name() == "model") ++count[p.value().text()];
  }
  std::string out;
  for (const auto& [model, n] : count)
    out += (out.empty() ? "; good trials by model: " : ", ") + model + " " + std::to_string(n);
  return out;
}

// Optuna's group decomposition (group=True): parameter sets that never
// split across the trials, so each group is in a trial entirely or not at
// all. Each distinct pattern of present parameters counts once (repeats
// split nothing), so the work grows with the patterns, not the trials.
std::vector<std::vector<int>> Groups(const std::set<std::string_view>& patterns) {
  std::vector<std::set<int>> groups;
  for (std::string_view pattern : patterns) {
    std::set<int> keys;
    for (size_t i = 0; i < pattern.size(); ++i)
      if (pattern[i]) keys.insert(static_cast<int>(i));
    std::vector<std::set<int>> next;
    for (const std::set<int>& g : groups) {
      std::set<int> in, out;
      for (int k : g) (keys.count(k) ? in : out).insert(k);
      for (int k : g) keys.erase(k);
      if (!in.empty()) next.push_back(std::move(in));
      if (!out.empty()) next.push_back(std::move(out));
    }
    if (!keys.empty()) next.push_back(std::move(keys));
    groups = std::move(next);
  }
  std::vector<std::vector<int>> out;
  for (const auto& g : groups) out.emplace_back(g.begin(), g.end());
  std::sort(out.begin(), out.end());
  return out;
}

// The estimators of one group of parameters: l(x) of the good trials, g(x)
// of the bad ones.
struct Fitted {
  std::vector<int> params;
  ParzenEstimator good, bad;
};

class TpeScheduler : public Scheduler, public Proposer {
 public:
  TpeScheduler(const pb::Study& study, const SearchSpace& space, const TrialTable* trials,
               int64_t created, int64_t consumed, bool bohb)
      : space_(space),
        trials_(trials),
        // Start-up points from the Halton sequence (BOHB's random draws are
        // uniform): they cover the space more evenly than uniform draws.
        random_(bohb ? MakeRandomSampler(space, study.seed())
                     : MakeQuasiRandomSampler(space, study.seed())),
        seed_(study.seed()),
        tpe_(study.algorithm().tpe()),
        bohb_cfg_(study.algorithm().bohb()),
        bohb_(bohb),
        maximize_(PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE),
        next_(created),
        consumed_(consumed) {
    if (!bohb && study.algorithm().has_max_trials()) {
      planned_ = study.algorithm().max_trials() + CopiedTrials(trials);
    }
    if (!bohb && study.algorithm().has_budget()) budget_ = study.algorithm().budget();
    if (bohb) {
      for (const Bracket& b : PlanHyperband(study).brackets)
        for (const Rung& r : b.rungs) rung_steps_.insert(r.resource);
    }
    for (int i = 0; i < space_.size(); ++i)
      if (space_.param(i).type() != pb::PARAM_TYPE_CONSTANT) searched_.push_back(i);
    if (!bohb && TracksTrialValues(study)) goals_ = GoalSigns(ObjectivesOf(study));
  }

  std::optional<TrialSpec> NextTrial() override {
    if (Exhausted()) return std::nullopt;
    TrialSpec spec;
    spec.number = next_++;
    *spec.params.mutable_params() = Propose(spec.number, &spec.origin);
    return spec;
  }
  bool Exhausted() const override {
    return (planned_ && next_ >= *planned_) || (budget_ && consumed_ >= *budget_);
  }
  std::optional<int64_t> Planned() const override { return planned_; }
  bool LearnsFromEveryResult() const override { return true; }
  Action OnReport(int64_t, int64_t, double) override {
    ++consumed_;
    return Action{};
  }
  void Observe(int64_t number, int64_t step, double objective) override {
    if (rung_steps_.count(step) && std::isfinite(objective))
      at_step_[step].emplace(number, objective);
  }
  Params Propose(int64_t k, std::string* origin) override;

 private:
  // What a proposal draws from: random points, or TPE's good and bad trials.
  struct Model {
    bool random = true;
    std::vector<Fitted> groups;
    std::string what;  // for `sweep why`
  };
  Model Prepare(const std::vector<const Trial*>& all, Rng* rng);
  // Several objectives or outcome constraints (tpe_split.h): the finished
  // trials split into `good` (weight 1 each with several objectives) and `bad`, by Pareto rank
  // and hypervolume, feasible first.
  void SplitByFront(const std::vector<const Trial*>& all, int64_t n_good, std::vector<Seen>* good,
                    std::vector<Seen>* bad, std::string* what);
  // Attempt 0 is the model's point (or the sampler's point k); later ones
  // ask the model again, then draw uniformly.
  Params Draw(const Model& m, int64_t k, int attempt, Rng* rng, double* log_ratio);
  Params RandomPoint(int64_t k) const { return PointOrDraw(*random_, space_, seed_, k); }
  // The trial's parameters in the estimator's form, cached by number.
  const Point& Values(const Trial& t);
  // The estimators of each group of parameters over `good` and `bad`.
  std::vector<Fitted> Fit(const std::vector<Seen>& good, const std::vector<Seen>& bad) const;
  // n_ei_candidates draws from each group's l(x); the best by l/g fills
  // `chosen`. Returns the winners' log l/g summed over the groups.
  double Candidates(const std::vector<Fitted>& groups, Rng* rng,
                    std::vector<std::optional<double>>* chosen) const;
  double Score(double v) const { return std::isfinite(v) ? (maximize_ ? -v : v) : INFINITY; }

  const SearchSpace& space_;
  const TrialTable* trials_;
  std::unique_ptr<Sampler> random_;
  uint64_t seed_;
  pb::TpeConfig tpe_;
  pb::BohbConfig bohb_cfg_;
  bool bohb_;
  bool maximize_;
  // Studies with several objectives or with constraints: each objective's
  // sign (-1: maximised), so the split sees them all minimised.
  std::vector<double> goals_;
  int64_t next_;
  int64_t consumed_;
  std::optional<int64_t> planned_, budget_;
  std::vector<int> searched_;  // parameters that are not constants
  std::unordered_map<int64_t, Point> cache_;
  // BOHB: the objective of each trial at each rung step it reached.
  std::set<int64_t> rung_steps_;
  std::map<int64_t, std::map<int64_t, double>> at_step_;
};

const Point& TpeScheduler::Values(const Trial& t) {
  auto it = cache_.find(t.number);
  if (it != cache_.end()) return it->second;
  Point p;
  p.x.resize(static_cast<size_t>(space_.size()));
  p.present.assign(static_cast<size_t>(space_.size()), 0);
  for (const auto& pv : t.params.params()) {
    for (int i : searched_) {
      if (space_.param(i).name() == pv.name()) {
        p.x[static_cast<size_t>(i)] = InternalValue(space_.param(i), pv.value());
        p.present[static_cast<size_t>(i)] = p.x[static_cast<size_t>(i)] ? 1 : 0;
        break;
      }
    }
  }
  return cache_.emplace(t.number, std::move(p)).first->second;
}

std::vector<Fitted> TpeScheduler::Fit(const std::vector<Seen>& good,
                                      const std::vector<Seen>& bad) const {
  // Which parameters occur together.
  std::set<std::string_view> patterns;
  for (const auto* side : {&good, &bad})
    for (const Seen& s : *side) patterns.insert(s.p->present);
  std::vector<std::vector<int>> groups;
  if (tpe_.multivariate()) {
    groups = Groups(patterns);
  } else {
    std::set<int> all;
    for (std::string_view pattern : patterns)
      for (size_t i = 0; i < pattern.size(); ++i)
        if (pattern[i]) all.insert(static_cast<int>(i));
    for (int i : all) groups.push_back({i});
  }
  std::vector<Fitted> out;
  for (const std::vector<int>& g : groups) {
    std::vector<ParzenDim> dims;
    for (int i : g) dims.push_back(DimOf(space_.param(i)));
    // The trials that have the whole group, one row each.
    auto rows = [&](const std::vector<Seen>& side, std::vector<double>* weights) {
      std::vector<double> flat;
      flat.reserve(side.size() * g.size());
      for (const Seen& s : side) {
        bool all = true;
        for (int i : g) all = all && s.p->present[static_cast<size_t>(i)];
        if (!all) continue;
        for (int i : g) flat.push_back(*s.p->x[static_cast<size_t>(i)]);
        if (s.weight >= 0) weights->push_back(s.weight);
      }
      return flat;
    };
    std::vector<double> good_weights, bad_weights;
    std::vector<double> good_rows = rows(good, &good_weights), bad_rows = rows(bad, &bad_weights);
    out.push_back(Fitted{g, ParzenEstimator(dims, good_rows, good_weights, tpe_.prior_weight()),
                         ParzenEstimator(dims, bad_rows, {}, tpe_.prior_weight())});
  }
  return out;
}

double TpeScheduler::Candidates(const std::vector<Fitted>& groups, Rng* rng,
                                std::vector<std::optional<double>>* chosen) const {
  double total = 0;
  for (const Fitted& f : groups) {
    std::vector<double> best;
    double best_score = -INFINITY;
    for (int c = 0; c < std::max(1, tpe_.n_ei_candidates()); ++c) {
      std::vector<double> x = f.good.Sample(rng);
      double score = f.good.LogPdf(x) - f.bad.LogPdf(x);
      if (best.empty() || score > best_score) {
        best = std::move(x);
        best_score = score;
      }
    }
    for (size_t j = 0; j < f.params.size(); ++j)
      (*chosen)[static_cast<size_t>(f.params[j])] = best[j];
    if (std::isfinite(best_score)) total += best_score;
  }
  return total;
}

TpeScheduler::Model TpeScheduler::Prepare(const std::vector<const Trial*>& all, Rng* rng) {
  Model m;
  std::vector<Seen> complete, pruned, running;
  std::vector<Seen> good, bad;
  std::string& what = m.what;
  if (!bohb_) {
    for (const Trial* t : all) {
      Seen s{t->number, &Values(*t), 0, 0};
      switch (t->status) {
        case TrialStatus::kCompleted:
          s.score = Score(t->value.value_or(NAN));
          if (std::isfinite(s.score)) complete.push_back(s);
          break;
        case TrialStatus::kStopped:
          s.score = Score(t->last_objective.value_or(NAN));
          s.step = t->last_step;
          pruned.push_back(s);
          break;
        case TrialStatus::kFailed:
          break;
        default:  // queued, running, paused: proposed, not yet judged
          if (tpe_.constant_liar()) running.push_back(s);
      }
    }
    int64_t n = static_cast<int64_t>(complete.size() + pruned.size());
    if (n < tpe_.n_startup_trials()) {
      what = "quasi-random start-up draw (" + std::to_string(n) + " of the " +
             std::to_string(tpe_.n_startup_trials()) + " finished trials TPE waits for)";
      return m;
    }
    int64_t n_good = std::min<int64_t>(
        static_cast<int64_t>(std::ceil(tpe_.gamma() * static_cast<double>(n))), kMaxGood);
    if (!goals_.empty()) {
      // Only completed trials can be good here (stopped ones are bad);
      // several objectives: Optuna 5's gamma has no cap of 25 there.
      const double done = static_cast<double>(complete.size());
      n_good = static_cast<int64_t>(std::ceil(tpe_.gamma() * done));
      if (goals_.size() == 1) n_good = std::min(n_good, kMaxGood);
      SplitByFront(all, n_good, &good, &bad, &what);
      bad.insert(bad.end(), running.begin(), running.end());
      if (!running.empty())
        what += " (" + std::to_string(running.size()) + " running, counted bad)";
      // Both sides in trial order, so the fading weights fall on the oldest.
      auto by_number = [](const Seen& a, const Seen& b) { return a.number < b.number; };
      std::sort(good.begin(), good.end(), by_number);
      std::sort(bad.begin(), bad.end(), by_number);
      m.random = false;
      m.groups = Fit(good, bad);
      return m;
    }
    // Completed trials by value; stopped ones after them, furthest first.
    std::stable_sort(complete.begin(), complete.end(),
                     [](const Seen& a, const Seen& b) { return a.score < b.score; });
    std::stable_sort(pruned.begin(), pruned.end(), [](const Seen& a, const Seen& b) {
      return a.step != b.step ? a.step > b.step : a.score < b.score;
    });
    for (const auto* side : {&complete, &pruned}) {
      for (const Seen& s : *side)
        (static_cast<int64_t>(good.size()) < n_good ? good : bad).push_back(s);
    }
    bad.insert(bad.end(), running.begin(), running.end());
    what = "TPE: " + std::to_string(good.size()) + " good and " + std::to_string(bad.size()) +
           " bad trials";
    if (!running.empty()) what += " (" + std::to_string(running.size()) + " running, counted bad)";
    // The good ones, best first (up to five), so `sweep why` shows whom the
    // proposal follows.
    std::string best;
    for (size_t i = 0; i < good.size() && i < 5; ++i)
      best += (i ? ", " : "") + std::to_string(good[i].number);
    if (!good.empty()) what += "; best good: trial " + best + (good.size() > 5 ? ", ..." : "");
    what += FamiliesOf(good, all);
  } else {
    if (rng->Uniform() < bohb_cfg_.random_fraction()) {
      what = "BOHB: random draw (a random_fraction of " +
             FormatDouble(bohb_cfg_.random_fraction()) + " of proposals are)";
      return m;
    }
    // The largest rung step with enough results.
    const std::map<int64_t, double>* results = nullptr;
    int64_t budget = 0;
    for (auto it = at_step_.rbegin(); it != at_step_.rend(); ++it) {
      if (static_cast<int64_t>(it->second.size()) >= bohb_cfg_.min_points_in_model()) {
        results = &it->second;
        budget = it->first;
        break;
      }
    }
    if (!results) {
      what = "BOHB: random draw (no rung step has " +
             std::to_string(bohb_cfg_.min_points_in_model()) + " results yet)";
      return m;
    }
    std::unordered_map<int64_t, const Trial*> by_number;
    for (const Trial* t : all) by_number[t->number] = t;
    for (const auto& [number, value] : *results) {
      auto t = by_number.find(number);
      if (t != by_number.end())
        complete.push_back(Seen{number, &Values(*t->second), Score(value), 0});
    }
    int64_t n = static_cast<int64_t>(complete.size());
    int64_t n_good = std::max<int64_t>(
        1, static_cast<int64_t>(std::ceil(bohb_cfg_.top_fraction() * static_cast<double>(n))));
    std::stable_sort(complete.begin(), complete.end(),
                     [](const Seen& a, const Seen& b) { return a.score < b.score; });
    for (const Seen& s : complete)
      (static_cast<int64_t>(good.size()) < n_good ? good : bad).push_back(s);
    what = "BOHB: TPE on the results at step " + std::to_string(budget) + " (" +
           std::to_string(good.size()) + " good, " + std::to_string(bad.size()) + " bad)";
  }
  // Both sides in trial order, so the fading weights fall on the oldest.
  auto by_number = [](const Seen& a, const Seen& b) { return a.number < b.number; };
  std::sort(good.begin(), good.end(), by_number);
  std::sort(bad.begin(), bad.end(), by_number);
  m.random = false;
  m.groups = Fit(good, bad);
  return m;
}

void TpeScheduler::SplitByFront(const std::vector<const Trial*>& all, int64_t n_good,
                                std::vector<Seen>* good, std::vector<Seen>* bad,
                                std::string* what) {
  FinishedSplit split = SplitFinishedTrials(all, goals_, n_good);
  for (size_t g = 0; g < split.good.size(); ++g) {
    const Trial* t = split.good[g];
    good->push_back(Seen{t->number, &Values(*t), 0, t->last_step, goals_.size() > 1 ? 1.0 : -1.0});
  }
  for (const Trial* t : split.bad) bad->push_back(Seen{t->number, &Values(*t), 0, t->last_step});
  *what = std::move(split.what);
}

Params TpeScheduler::Draw(const Model& m, int64_t k, int attempt, Rng* rng, double* log_ratio) {
  if (m.random && attempt == 0) return RandomPoint(k);
  std::vector<std::optional<double>> chosen(static_cast<size_t>(space_.size()));
  if (!m.random && attempt < kModelAttempts) *log_ratio = Candidates(m.groups, rng, &chosen);
  // A parameter takes the model's value where it has one; the others (never
  // seen active) get a uniform draw.
  return space_.Choose([&](int i) {
    const auto& c = chosen[static_cast<size_t>(i)];
    return c ? ExternalValue(space_.param(i), *c) : space_.FromUnit(i, rng->Uniform());
  });
}

Params TpeScheduler::Propose(int64_t k, std::string* origin) {
  Rng rng(HashKey({seed_, static_cast<uint64_t>(k), kTpeSalt}));
  std::vector<const Trial*> all;
  std::set<std::string> taken;  // the points of trials not yet finished
  if (trials_) {
    all.reserve(trials_->all().size());
    for (const auto& [id, t] : trials_->all()) {
      all.push_back(&t);
      if (!IsFinished(t.status)) taken.insert(t.params.SerializeAsString());
    }
    std::sort(all.begin(), all.end(),
              [](const Trial* a, const Trial* b) { return a->number < b->number; });
  }
  Model m = Prepare(all, &rng);
  // A point no unfinished trial has: the constant liar makes a repeat
  // unlikely, and this makes it impossible wherever the space has room
  // (the model is asked again, then uniform draws are taken).
  double log_ratio = 0;
  Params out;
  int attempt = 0;
  bool repeats = false;
  bool feasible = true;
  for (;; ++attempt) {
    out = Draw(m, k, attempt, &rng, &log_ratio);
    pb::ParamSet set;
    *set.mutable_params() = out;
    repeats = taken.count(set.SerializeAsString()) > 0;
    feasible = space_.Feasible(out);
    if ((!repeats && feasible) || attempt == kMaxAttempts) break;
  }
  // A point that breaks a parameter constraint is never proposed: past the
  // model's attempts, uniform draws until one satisfies them.
  for (int draw = 0; !feasible && draw < kFeasibleDraws; ++draw) {
    out = space_.Sample([&](int) { return rng.Uniform(); });
    feasible = space_.Feasible(out);
    repeats = false;
  }
  *origin = m.what;
  if (!m.random && attempt < kModelAttempts)
    *origin += ", l/g of the winning candidate " + FormatDouble(std::exp(log_ratio));
  if (!feasible) {
    *origin += "; no draw satisfied the parameter constraints";
  } else if (attempt == kMaxAttempts && !repeats) {
    *origin += "; a uniform draw: no model candidate satisfied the parameter constraints";
  } else if (repeats) {
    *origin += "; it repeats an unfinished trial's point: " + std::to_string(attempt + 1) +
               " draws found no free one";
  } else if (attempt > 0) {
    *origin +=
        attempt < kModelAttempts || m.random
            ? "; drawn again " + std::to_string(attempt) + " time(s): a running trial had the point"
            : "; a uniform draw: every model candidate was a running trial's point";
  }
  // Model families searched (model_families.h): which one this trial is.
  for (const auto& p : out)
    if (p.name() == "model") *origin += "; proposes model " + p.value().text();
  return out;
}

}  // namespace

std::unique_ptr<Scheduler> MakeTpe(const pb::Study& study, const SearchSpace& space,
                                   const TrialTable* trials, int64_t created, int64_t consumed) {
  return std::make_unique<TpeScheduler>(study, space, trials, created, consumed, false);
}

std::unique_ptr<Proposer> MakeTpeProposer(const pb::Study& study, const SearchSpace& space,
                                          const TrialTable* trials) {
  return std::make_unique<TpeScheduler>(study, space, trials, 0, 0, false);
}

std::unique_ptr<Scheduler> MakeBohbProposer(const pb::Study& study, const SearchSpace& space,
                                            const TrialTable* trials, int64_t created) {
  return std::make_unique<TpeScheduler>(study, space, trials, created, 0, true);
}

}  // namespace sweep
