// Population-based training (Jaderberg et al., 2017), generation-synchronous:
// every perturbation_interval steps each member pauses until the whole
// population has reported at that step (or ended). Then the bottom quantile
// stop, and each is replaced by a new trial that starts from a top-quantile
// member's committed checkpoint at that step (exploit) with perturbed
// parameters (explore); the others resume. Waiting for the generation makes
// every decision independent of arrival order and of how many runners there
// are, so a resumed tuner and an uninterrupted one decide alike.
#include "tuner/algorithms/pbt.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/json.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "common/rng.h"
#include "common/train_knobs.h"
#include "common/values.h"
#include "search_spaces/samplers.h"
#include "tuner/algorithms/cohort.h"
#include "tuner/scheduler.h"

namespace sweep {

namespace {

constexpr int kExploreDraws = 100;

const pb::Value* Find(const Params& params, const std::string& name) {
  for (const auto& p : params)
    if (p.name() == name) return &p.value();
  return nullptr;
}

class Pbt : public Scheduler {
 public:
  Pbt(const pb::Study& study, const SearchSpace& space, int64_t created)
      : space_(space),
        sampler_(MakeRandomSampler(space, study.seed())),
        seed_(study.seed()),
        maximize_(PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE),
        metric_(PrimaryObjective(study).metric()),
        structural_(StructuralParams(study)) {
    const pb::PbtConfig& c = study.algorithm().pbt();
    population_ = c.population();
    interval_ = c.perturbation_interval();
    quantile_ = c.quantile();
    resample_ = c.resample_prob();
    max_steps_ = c.max_steps();
    if (study.algorithm().has_max_trials()) max_trials_ = study.algorithm().max_trials();
    created_ = std::min<int64_t>(created, population_);
    next_number_ = population_;
    std::set<int64_t> first;
    for (int64_t k = 0; k < population_; ++k) {
      first.insert(k);
      params_[k] = PointOrDraw(*sampler_, space_, seed_, k);
      start_[k] = 0;
    }
    if (interval_ < max_steps_) gens_.push_back(Cohort(interval_, std::move(first)));
  }

  std::optional<TrialSpec> NextTrial() override {
    if (created_ >= population_) return std::nullopt;
    TrialSpec spec;
    spec.number = created_++;
    *spec.params.mutable_params() = params_[spec.number];
    return spec;
  }
  bool Exhausted() const override {
    return created_ >= population_ &&
           std::all_of(gens_.begin(), gens_.end(), [](const Cohort& c) { return c.resolved(); });
  }
  std::optional<int64_t> Planned() const override { return std::nullopt; }
  // Every member that completed may still be a parent.
  bool ReadsFinishedCheckpoints() const override { return true; }

  std::vector<int64_t> DecisionSteps(int64_t number) const override {
    std::vector<int64_t> out;
    auto it = start_.find(number);
    int64_t start = it == start_.end() ? 0 : it->second;
    for (int64_t s = interval_; s < max_steps_; s += interval_)
      if (s > start) out.push_back(s);
    return out;
  }

  void OnCheckpoint(int64_t number, int64_t step) override { checkpoints_.insert({number, step}); }

  Action OnReport(int64_t number, int64_t step, double value) override {
    if (step % interval_ != 0 || step >= max_steps_) return Action{};
    size_t g = static_cast<size_t>(step / interval_) - 1;
    auto done = decided_.find({number, g});
    if (done != decided_.end()) return done->second;
    if (g >= gens_.size() || !gens_[g].Report(number, value)) return Action{};
    if (gens_[g].Complete()) {
      Resolve(g, number);
      return decided_[{number, g}];
    }
    Action wait{Decision::kPause, "paused at generation " + std::to_string(g + 1) + " (step " +
                                      std::to_string(step) + "): " + metric_ + " " +
                                      ScreenNumber(value) + ", " +
                                      std::to_string(gens_[g].arrived()) + " of " +
                                      std::to_string(gens_[g].size()) + " members are in"};
    decided_[{number, g}] = wait;
    return wait;
  }

  void OnEnd(int64_t number, int64_t) override {
    for (size_t g = 0; g < gens_.size(); ++g) {
      if (gens_[g].resolved() || !gens_[g].End(number)) continue;
      if (gens_[g].Complete()) Resolve(g, -1);
      return;
    }
  }

  std::optional<Action> DecisionAt(int64_t number, int64_t step) const override {
    if (step % interval_ != 0 || step < interval_) return std::nullopt;
    auto it = decided_.find({number, static_cast<size_t>(step / interval_) - 1});
    if (it == decided_.end()) return std::nullopt;
    return it->second;
  }

  std::vector<Directive> TakeDirectives() override { return std::exchange(directives_, {}); }

 private:
  // Knobs that shape the model or its optimizer state (common/train_knobs.h):
  // a child inherits them with the weights.
  static std::set<std::string> StructuralParams(const pb::Study& study) {
    if (!study.task().has_train()) return {};
    std::set<std::string> out;
    for (const auto& k : TrainKnobs())
      if (k.inherited) out.emplace(k.name);
    return out;
  }

  void Resolve(size_t g, int64_t reporter) {
    Cohort& gen = gens_[g];
    gen.MarkResolved();
    int64_t step = gen.step();
    auto ranked = gen.Ranked(maximize_);
    auto n = static_cast<int64_t>(ranked.size());
    int64_t nonfinite = std::count_if(ranked.begin(), ranked.end(),
                                      [](const auto& p) { return !std::isfinite(p.second); });
    int64_t q = static_cast<int64_t>(std::floor(quantile_ * static_cast<double>(n)));
    int64_t bottom = std::max(n >= 2 ? q : 0, nonfinite);
    // Sources: top-quantile members with a committed checkpoint at this step.
    std::vector<std::pair<int64_t, double>> sources;
    for (int64_t k = 0; k < std::max<int64_t>(q, 1) && k < n - nonfinite; ++k) {
      auto [num, v] = ranked[static_cast<size_t>(k)];
      if (checkpoints_.count({num, step})) sources.push_back({num, v});
    }
    std::string where =
        "generation " + std::to_string(g + 1) + " (step " + std::to_string(step) + ")";
    std::set<int64_t> next;
    Rng rng(HashKey({seed_, static_cast<uint64_t>(g), 0x9B7}));
    for (int64_t k = 0; k < n; ++k) {
      auto [num, v] = ranked[static_cast<size_t>(k)];
      std::string rank = metric_ + " " + ScreenNumber(v) + ", rank " + std::to_string(k + 1) +
                         " of " + std::to_string(n);
      Action a{Decision::kContinue, "kept at " + where + ": " + rank};
      if (k >= n - bottom) {
        std::string why;
        if (sources.empty()) {
          why = "no top member has a committed checkpoint at step " + std::to_string(step);
        } else if (max_trials_ && next_number_ >= *max_trials_) {
          why = "max_trials " + std::to_string(*max_trials_) + " reached";
        }
        if (why.empty()) {
          auto [src, src_v] =
              sources[static_cast<size_t>(rng.Next() % static_cast<uint64_t>(sources.size()))];
          Replacement r = Spawn(g, src, src_v, step, &rng);
          int64_t child = r.trial.number;
          next.insert(child);
          a = {Decision::kExploit,
               "exploited at " + where + ": " + rank + " (bottom quantile); " +
                   "replaced by trial number " + std::to_string(child) + ", a copy of number " +
                   std::to_string(src) + " (" + ScreenNumber(src_v) + ")",
               std::move(r)};
        } else if (!std::isfinite(v)) {
          a = {Decision::kStop, "stopped at " + where + ": " + rank + " is not finite; " + why};
        } else {
          a.reason += " (bottom quantile, not exploited: " + why + ")";
        }
      }
      if (a.decision == Decision::kContinue) next.insert(num);
      decided_[{num, g}] = a;
      if (num != reporter) directives_.push_back({num, step, a});
    }
    // Members that ended (failed) before this step leave the population: a
    // child of a top member takes each place.
    for (int64_t lost : gen.ended()) {
      if (sources.empty() || (max_trials_ && next_number_ >= *max_trials_)) break;
      auto [src, src_v] =
          sources[static_cast<size_t>(rng.Next() % static_cast<uint64_t>(sources.size()))];
      Replacement r = Spawn(g, src, src_v, step, &rng);
      next.insert(r.trial.number);
      directives_.push_back({lost, step, {Decision::kExploit, "", std::move(r)}});
    }
    if (step + interval_ < max_steps_) {
      gens_.push_back(Cohort(step + interval_, std::move(next)));
      if (gens_.back().Complete()) Resolve(gens_.size() - 1, -1);
    }
  }

  // A new member from `src`'s checkpoint at `step`, with explored parameters.
  Replacement Spawn(size_t g, int64_t src, double src_v, int64_t step, Rng* rng) {
    int64_t child = next_number_++;
    std::string changes;
    // A perturbation that breaks a parameter constraint is drawn again; the
    // parent's own point (feasible) when none of kExploreDraws fits.
    params_[child] = params_[src];
    for (int draw = 0; draw < kExploreDraws; ++draw) {
      std::string tried;
      Params p = Explore(params_[src], rng, &tried);
      if (!space_.Feasible(p)) continue;
      params_[child] = std::move(p);
      changes = std::move(tried);
      break;
    }
    start_[child] = step;
    TrialSpec spec;
    spec.number = child;
    spec.params.mutable_params()->CopyFrom(params_[child]);
    spec.parent = src;
    spec.parent_step = step;
    return {std::move(spec), "exploit at generation " + std::to_string(g + 1) +
                                 ": copy of trial number " + std::to_string(src) + " at step " +
                                 std::to_string(step) + " (" + metric_ + " " + ScreenNumber(src_v) +
                                 "); explore: " + (changes.empty() ? "no change" : changes)};
  }

  // Continuous values times 0.8 or 1.2 (within bounds), discrete ones to a
  // neighbour, any one resampled with probability resample_prob.
  Params Explore(const Params& from, Rng* rng, std::string* changes) {
    std::vector<std::optional<pb::Value>> chosen(static_cast<size_t>(space_.size()));
    for (int i : space_.order()) {
      if (!space_.Active(i, chosen)) continue;
      const pb::Parameter& p = space_.param(i);
      const pb::Value* old = Find(from, p.name());
      double coin = rng->Uniform(), draw = rng->Uniform(), dir = rng->Uniform();
      pb::Value v;
      const char* how = "";
      if (!old || (!structural_.count(p.name()) && coin < resample_)) {
        v = space_.FromUnit(i, draw);
        how = " (resampled)";
      } else if (structural_.count(p.name()) || p.type() == pb::PARAM_TYPE_CONSTANT) {
        v = *old;
      } else if (p.type() == pb::PARAM_TYPE_FLOAT) {
        v = NumberValue(std::clamp(old->number() * (dir < 0.5 ? 0.8 : 1.2), p.min(), p.max()));
      } else if (p.type() == pb::PARAM_TYPE_INT) {
        int64_t step = static_cast<int64_t>(p.step());
        int64_t x = old->integer() + (dir < 0.5 ? -step : step);
        if (x < static_cast<int64_t>(p.min()) || x > static_cast<int64_t>(p.max()))
          x = old->integer() + (dir < 0.5 ? step : -step);
        v = IntegerValue(
            std::clamp(x, static_cast<int64_t>(p.min()), static_cast<int64_t>(p.max())));
      } else {
        int k = 0, n = p.values_size();
        while (k < n && !ValuesEqual(p.values(k), *old)) ++k;
        int to = k + (dir < 0.5 ? -1 : 1);
        if (to < 0 || to >= n) to = k + (dir < 0.5 ? 1 : -1);
        v = n > 1 && k < n ? p.values(std::clamp(to, 0, n - 1)) : *old;
      }
      if (!old || !ValuesEqual(*old, v)) {
        *changes += (changes->empty() ? "" : ", ") + p.name() + " " +
                    (old ? ValueToString(*old) : std::string("unset")) + " -> " + ValueToString(v) +
                    how;
      }
      chosen[static_cast<size_t>(i)] = v;
    }
    Params out;
    for (int i = 0; i < space_.size(); ++i) {
      if (!chosen[static_cast<size_t>(i)]) continue;
      pb::ParamValue* pv = out.Add();
      pv->set_name(space_.param(i).name());
      *pv->mutable_value() = *chosen[static_cast<size_t>(i)];
    }
    return out;
  }

  const SearchSpace& space_;
  std::unique_ptr<Sampler> sampler_;
  uint64_t seed_;
  bool maximize_;
  std::string metric_;
  std::set<std::string> structural_;
  int64_t population_ = 8, interval_ = 1, max_steps_ = 1;
  double quantile_ = 0.25, resample_ = 0.25;
  std::optional<int64_t> max_trials_;
  int64_t created_ = 0, next_number_ = 0;
  std::map<int64_t, Params> params_;                   // every member's parameters, by trial number
  std::map<int64_t, int64_t> start_;                   // step each member starts from
  std::set<std::pair<int64_t, int64_t>> checkpoints_;  // committed (trial number, step)
  std::vector<Cohort> gens_;  // generation g waits at step (g + 1) * interval
  std::map<std::pair<int64_t, size_t>, Action> decided_;
  std::vector<Directive> directives_;
};

}  // namespace

std::unique_ptr<Scheduler> MakePbt(const pb::Study& study, const SearchSpace& space,
                                   int64_t created) {
  return std::make_unique<Pbt>(study, space, created);
}

}  // namespace sweep
