// The GP sampler's view of the trials (each as a point in the unit cube),
// its proposals, and the scheduler that runs gp and auto studies.
#include "tuner/algorithms/gp.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include "common/json.h"
#include "common/objectives.h"
#include "common/rng.h"
#include "search_spaces/parameter_constraints.h"
#include "search_spaces/samplers.h"
#include "tuner/algorithms/auto_choice.h"
#include "tuner/algorithms/gp_acquisition.h"
#include "tuner/algorithms/gp_model.h"
#include "tuner/algorithms/param_codec.h"
#include "tuner/algorithms/tpe.h"

namespace sweep {

namespace {

constexpr uint64_t kGpSalt = 0x69a3f1c5;
constexpr size_t kAnchors = 5;      // best trials searched around
constexpr size_t kCandidates = 64;  // kept in case the best repeat a trial
constexpr int kMaxDraws = 64;       // uniform draws for a point no trial has
// The kernel's hyperparameters are fitted to at most this many trials
// (each step of the fit costs the cube of them); the model then conditions
// on every trial.
constexpr Eigen::Index kMaxFitPoints = 100;
constexpr Eigen::Index kFitBest = 30;  // of them, the best trials

// The rows the hyperparameters are fitted to: all of them up to
// kMaxFitPoints, else the kFitBest best and the others evenly spread over
// the rest in trial order (a pure function of the data).
std::vector<Eigen::Index> FitRows(const Eigen::VectorXd& y) {
  const Eigen::Index n = y.size();
  std::vector<Eigen::Index> rows(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = i;
  if (n <= kMaxFitPoints) return rows;
  std::vector<Eigen::Index> by_value = rows;
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return y(a) < y(b); });
  std::vector<bool> chosen(static_cast<size_t>(n), false);
  for (Eigen::Index i = 0; i < kFitBest; ++i)
    chosen[static_cast<size_t>(by_value[static_cast<size_t>(i)])] = true;
  std::vector<Eigen::Index> rest;
  for (Eigen::Index i = 0; i < n; ++i)
    if (!chosen[static_cast<size_t>(i)]) rest.push_back(i);
  const Eigen::Index want = kMaxFitPoints - kFitBest;
  for (Eigen::Index j = 0; j < want; ++j)
    chosen[static_cast<size_t>(
        rest[static_cast<size_t>(j * static_cast<Eigen::Index>(rest.size()) / want)])] = true;
  rows.clear();
  for (Eigen::Index i = 0; i < n; ++i)
    if (chosen[static_cast<size_t>(i)]) rows.push_back(i);
  return rows;
}

class GpProposer : public Proposer {
 public:
  GpProposer(const pb::Study& study, const SearchSpace& space, const TrialTable* trials)
      : space_(space),
        trials_(trials),
        startup_(MakeQuasiRandomSampler(space, study.seed())),
        seed_(study.seed()),
        n_startup_(study.algorithm().gp().n_startup_trials()),
        maximize_(PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE) {
    for (int i = 0; i < space_.size(); ++i) {
      const pb::Parameter& p = space_.param(i);
      if (p.type() == pb::PARAM_TYPE_CONSTANT) continue;
      columns_.push_back(i);
      dims_.push_back(DimOf(p));
      bool cat = p.type() == pb::PARAM_TYPE_CATEGORICAL;
      categorical_.push_back(cat);
      choices_.push_back(cat ? p.values_size() : 0);
    }
  }

  Params Propose(int64_t k, std::string* origin) override;

 private:
  // A trial's point in the unit cube (categorical columns: the choice's
  // index); nullopt if it lacks a value of the space.
  std::optional<Eigen::VectorXd> Encode(const Trial& t) const;
  Params Decode(const Eigen::VectorXd& x) const;
  // The parameters by relevance (shortest lengthscale first), for `why`.
  std::string Relevance(const GpKernel& k) const;
  // `point` if no trial has it, else uniform draws until one is free
  // (kMaxDraws at most: a small discrete space may have no free point).
  Params FreePoint(Params point, const std::set<std::string>& taken, Rng* rng,
                   std::string* origin) const;

  const SearchSpace& space_;
  const TrialTable* trials_;
  std::unique_ptr<Sampler> startup_;
  uint64_t seed_;
  int n_startup_;
  bool maximize_;
  std::vector<int> columns_;  // the space's index of each column
  std::vector<ParzenDim> dims_;
  std::vector<bool> categorical_;
  std::vector<int> choices_;
};

std::optional<Eigen::VectorXd> GpProposer::Encode(const Trial& t) const {
  Eigen::VectorXd x(static_cast<Eigen::Index>(columns_.size()));
  for (size_t c = 0; c < columns_.size(); ++c) {
    const pb::Parameter& p = space_.param(columns_[c]);
    std::optional<double> v;
    for (const auto& pv : t.params.params()) {
      if (pv.name() == p.name()) {
        v = InternalValue(p, pv.value());
        break;
      }
    }
    if (!v) return std::nullopt;
    const ParzenDim& d = dims_[c];
    if (categorical_[c]) {
      x(static_cast<Eigen::Index>(c)) = *v;
      continue;
    }
    double lo = d.DomainLow(), hi = d.DomainHigh();
    x(static_cast<Eigen::Index>(c)) =
        hi > lo ? std::clamp((d.Transform(*v) - lo) / (hi - lo), 0.0, 1.0) : 0.5;
  }
  return x;
}

Params GpProposer::Decode(const Eigen::VectorXd& x) const {
  std::vector<std::optional<pb::Value>> values(static_cast<size_t>(space_.size()));
  for (size_t c = 0; c < columns_.size(); ++c) {
    const pb::Parameter& p = space_.param(columns_[c]);
    const ParzenDim& d = dims_[c];
    double u = x(static_cast<Eigen::Index>(c));
    if (categorical_[c]) {
      values[static_cast<size_t>(columns_[c])] = ExternalValue(p, std::round(u));
      continue;
    }
    double lo = d.DomainLow(), hi = d.DomainHigh();
    double t = lo + std::clamp(u, 0.0, 1.0) * (hi - lo);
    double v = d.log ? std::exp(t) : t;
    if (d.kind == ParzenDim::Kind::kDiscrete)
      v = std::clamp(d.low + std::round((v - d.low) / d.step) * d.step, d.low, d.high);
    values[static_cast<size_t>(columns_[c])] = ExternalValue(p, v);
  }
  // Constants (and, validation ensures, no conditional parameters) fill in.
  return space_.Choose([&](int i) {
    const auto& v = values[static_cast<size_t>(i)];
    return v ? *v : space_.FromUnit(i, 0.5);
  });
}

std::string GpProposer::Relevance(const GpKernel& k) const {
  std::vector<size_t> order(columns_.size());
  for (size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return k.inv_sq_lengthscales(static_cast<Eigen::Index>(a)) >
           k.inv_sq_lengthscales(static_cast<Eigen::Index>(b));
  });
  std::string out;
  for (size_t i = 0; i < order.size() && i < 3; ++i) {
    double ls = 1 / std::sqrt(k.inv_sq_lengthscales(static_cast<Eigen::Index>(order[i])));
    out += (i ? ", " : "") + space_.param(columns_[order[i]]).name() + " (" +
           FormatDouble(std::round(ls * 1000) / 1000) + ")";
  }
  return out;
}

Params GpProposer::Propose(int64_t k, std::string* origin) {
  Rng rng(HashKey({seed_, static_cast<uint64_t>(k), kGpSalt}));
  std::vector<const Trial*> all;
  if (trials_) {
    for (const auto& [id, t] : trials_->all()) all.push_back(&t);
    std::sort(all.begin(), all.end(),
              [](const Trial* a, const Trial* b) { return a->number < b->number; });
  }
  std::vector<Eigen::VectorXd> done, pending;
  std::vector<double> scores;
  std::vector<int64_t> numbers;
  std::set<std::string> taken;  // every trial's point: none is proposed again
  for (const Trial* t : all) {
    taken.insert(t->params.SerializeAsString());
    std::optional<Eigen::VectorXd> x = Encode(*t);
    if (!x) continue;
    if (t->status == TrialStatus::kCompleted && t->value && std::isfinite(*t->value)) {
      done.push_back(*x);
      scores.push_back(maximize_ ? -*t->value : *t->value);
      numbers.push_back(t->number);
    } else if (!IsFinished(t->status)) {
      pending.push_back(*x);
    }
  }
  const int64_t n = static_cast<int64_t>(done.size());
  if (n < n_startup_ || columns_.empty()) {
    *origin = columns_.empty()
                  ? std::string("quasi-random draw (no parameter is searched)")
                  : "quasi-random start-up draw (" + std::to_string(n) + " of the " +
                        std::to_string(n_startup_) + " completed trials the GP waits for)";
    return FreePoint(PointOrDraw(*startup_, space_, seed_, k), taken, &rng, origin);
  }
  const Eigen::Index D = static_cast<Eigen::Index>(columns_.size());
  Eigen::MatrixXd X(n, D);
  for (Eigen::Index i = 0; i < n; ++i) X.row(i) = done[static_cast<size_t>(i)].transpose();
  Eigen::VectorXd y = StandardizeOutputs(scores);
  std::vector<Eigen::Index> fit_rows = FitRows(y);
  GpKernel kernel = FitKernel(X(fit_rows, Eigen::all), y(fit_rows), categorical_);
  GaussianProcess gp(X, y, categorical_, kernel);
  Eigen::Index best_row = 0;
  double best = y.minCoeff(&best_row);
  // Running trials at the model's own prediction (the Kriging believer).
  std::optional<GaussianProcess> believer;
  if (!pending.empty()) {
    Eigen::MatrixXd P(static_cast<Eigen::Index>(pending.size()), D);
    for (size_t i = 0; i < pending.size(); ++i)
      P.row(static_cast<Eigen::Index>(i)) = pending[i].transpose();
    Eigen::VectorXd mean, var;
    gp.Predict(P, &mean, &var);
    Eigen::MatrixXd X2(n + P.rows(), D);
    X2 << X, P;
    Eigen::VectorXd y2(n + P.rows());
    y2 << y, mean;
    believer.emplace(X2, y2, categorical_, gp.kernel(), P.rows());
    // A running trial predicted below the best counts as found: otherwise
    // its point (and its close neighbours) would still promise that gain.
    best = std::min(best, mean.minCoeff());
  }
  std::vector<size_t> by_score(done.size());
  for (size_t i = 0; i < by_score.size(); ++i) by_score[i] = i;
  std::stable_sort(by_score.begin(), by_score.end(),
                   [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  std::vector<Eigen::VectorXd> anchors;
  for (size_t i = 0; i < by_score.size() && i < kAnchors; ++i) anchors.push_back(done[by_score[i]]);
  std::vector<Candidate> candidates =
      MaximizeLogEi(believer ? *believer : gp, choices_, best, anchors, &rng, kCandidates);

  *origin = "GP: " + std::to_string(n) + " completed trials";
  if (static_cast<Eigen::Index>(fit_rows.size()) < n)
    *origin += " (its kernel fitted to " + std::to_string(fit_rows.size()) + " of them)";
  if (!pending.empty())
    *origin += ", " + std::to_string(pending.size()) + " running at the model's prediction";
  *origin += "; best: trial " + std::to_string(numbers[static_cast<size_t>(best_row)]) +
             "; most relevant: " + Relevance(gp.kernel());
  for (size_t i = 0; i < candidates.size(); ++i) {
    Params out = Decode(candidates[i].x);
    pb::ParamSet set;
    *set.mutable_params() = out;
    if (taken.count(set.SerializeAsString()) || !space_.Feasible(out)) continue;
    *origin += "; log EI " + FormatDouble(std::round(candidates[i].log_ei * 1000) / 1000);
    if (i > 0)
      *origin += " (candidate " + std::to_string(i + 1) +
                 ": the better ones repeat trials or break a parameter constraint)";
    return out;
  }
  *origin += "; a uniform draw: every candidate repeats a trial or breaks a parameter constraint";
  return FreePoint(space_.Sample([&](int) { return rng.Uniform(); }), taken, &rng, origin);
}

Params GpProposer::FreePoint(Params point, const std::set<std::string>& taken, Rng* rng,
                             std::string* origin) const {
  // A point that breaks a parameter constraint is never proposed.
  for (int draw = 0; !space_.Feasible(point) && draw < kFeasibleDraws; ++draw)
    point = space_.Sample([&](int) { return rng->Uniform(); });
  for (int attempt = 0;; ++attempt) {
    pb::ParamSet set;
    *set.mutable_params() = point;
    if (!taken.count(set.SerializeAsString())) {
      if (attempt > 0)
        *origin += "; drawn again " + std::to_string(attempt) + " time(s): a trial had the point";
      return point;
    }
    if (attempt == kMaxDraws) {
      *origin += "; it repeats a trial's point: " + std::to_string(attempt + 1) +
                 " draws found no free one";
      return point;
    }
    Params next = space_.Sample([&](int) { return rng->Uniform(); });
    if (space_.Feasible(next)) point = std::move(next);
  }
}

// gp and auto studies: trial k from the GP while k < gp_trials, else TPE.
class ModelScheduler : public Scheduler {
 public:
  ModelScheduler(const pb::Study& study, const SearchSpace& space, const TrialTable* trials,
                 int64_t created, int64_t consumed)
      : next_(created), consumed_(consumed) {
    if (study.algorithm().type() == pb::ALGORITHM_TYPE_AUTO) {
      choice_ = ChooseAuto(study);
      prefix_ = "auto: " + choice_.reason + ". ";
    } else {
      choice_.gp_trials = INT64_MAX;
    }
    if (choice_.gp_trials > 0) gp_ = MakeGpProposer(study, space, trials);
    if (choice_.gp_trials < INT64_MAX) tpe_ = MakeTpeProposer(study, space, trials);
    planned_ = study.algorithm().max_trials() + CopiedTrials(trials);
    if (study.algorithm().has_budget()) budget_ = study.algorithm().budget();
  }

  std::optional<TrialSpec> NextTrial() override {
    if (Exhausted()) return std::nullopt;
    TrialSpec spec;
    spec.number = next_++;
    Proposer& from = spec.number < choice_.gp_trials ? *gp_ : *tpe_;
    *spec.params.mutable_params() = from.Propose(spec.number, &spec.origin);
    spec.origin = prefix_ + spec.origin;
    return spec;
  }
  bool Exhausted() const override {
    return next_ >= planned_ || (budget_ && consumed_ >= *budget_);
  }
  std::optional<int64_t> Planned() const override { return planned_; }
  bool LearnsFromEveryResult() const override { return true; }
  Action OnReport(int64_t, int64_t, double) override {
    ++consumed_;
    return Action{};
  }

 private:
  AutoChoice choice_;
  std::string prefix_;
  std::unique_ptr<Proposer> gp_, tpe_;
  int64_t next_, consumed_, planned_ = 0;
  std::optional<int64_t> budget_;
};

}  // namespace

std::unique_ptr<Proposer> MakeGpProposer(const pb::Study& study, const SearchSpace& space,
                                         const TrialTable* trials) {
  return std::make_unique<GpProposer>(study, space, trials);
}

std::unique_ptr<Scheduler> MakeGpOrAuto(const pb::Study& study, const SearchSpace& space,
                                        const TrialTable* trials, int64_t created,
                                        int64_t consumed) {
  return std::make_unique<ModelScheduler>(study, space, trials, created, consumed);
}

}  // namespace sweep
