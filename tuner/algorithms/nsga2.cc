// NSGA-II: the elite of the earlier generations, binary tournaments, SBX
// and uniform crossover, mutation by a uniform redraw.
#include "tuner/algorithms/nsga2.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/json.h"
#include "common/objectives.h"
#include "common/pareto.h"
#include "common/rng.h"
#include "search_spaces/parameter_constraints.h"
#include "search_spaces/samplers.h"
#include "tuner/algorithms/param_codec.h"

namespace sweep {

namespace {

constexpr uint64_t kNsga2Salt = 0x45ea2ULL;
constexpr int kChildDraws = 100;  // children bred before uniform draws, under parameter constraints

// One member of the elite: its trial, front and crowding distance.
struct Member {
  const Trial* trial = nullptr;
  size_t rank = 0;
  double crowding = 0;
};

class Nsga2 : public Scheduler {
 public:
  Nsga2(const pb::Study& study, const SearchSpace& space, const TrialTable* trials, int64_t created)
      : space_(space),
        trials_(trials),
        startup_(MakeQuasiRandomSampler(space, study.seed())),
        cfg_(study.algorithm().nsga2()),
        seed_(study.seed()),
        next_(created),
        planned_(study.algorithm().max_trials()),
        goals_(GoalSigns(ObjectivesOf(study))) {}

  std::optional<TrialSpec> NextTrial() override {
    if (Exhausted()) return std::nullopt;
    TrialSpec spec;
    spec.number = next_++;
    *spec.params.mutable_params() = Propose(spec.number, &spec.origin);
    return spec;
  }
  bool Exhausted() const override { return next_ >= planned_; }
  std::optional<int64_t> Planned() const override { return planned_; }
  bool LearnsFromEveryResult() const override { return true; }
  Action OnReport(int64_t, int64_t, double) override { return Action{}; }

 private:
  Params Propose(int64_t k, std::string* origin);
  // The best `population` completed trials numbered below `limit`.
  std::vector<Member> Elite(int64_t limit) const;
  const Member& Tournament(const std::vector<Member>& elite, Rng* rng) const;
  // A child of `a` and `b`; `what` says how it was bred.
  Params Breed(const Trial& a, const Trial& b, Rng* rng, std::string* what) const;
  // SBX (Deb and Agrawal, 1995) for parameter i's values x and y.
  double Sbx(int i, double x, double y, Rng* rng) const;

  const SearchSpace& space_;
  const TrialTable* trials_;
  std::unique_ptr<Sampler> startup_;
  pb::Nsga2Config cfg_;
  uint64_t seed_;
  int64_t next_;
  int64_t planned_;
  std::vector<double> goals_;  // -1 where maximised
  // Elite()'s last answer, for (limit, completed trials below it).
  mutable int64_t cached_limit_ = -1, cached_completed_ = -1;
  mutable std::vector<Member> cached_elite_;
};

std::vector<Member> Nsga2::Elite(int64_t limit) const {
  // The elite changes only when a trial below `limit` completes (trials
  // never leave completed): the last one is kept for as long.
  int64_t completed = 0;
  if (trials_) {
    for (const auto& [id, t] : trials_->all())
      completed += t.status == TrialStatus::kCompleted && t.number < limit;
  }
  if (limit == cached_limit_ && completed == cached_completed_) return cached_elite_;
  // The table is by id: the pool by number, so ties break the same way
  // every time.
  std::vector<const Trial*> sorted_pool;
  if (trials_) {
    for (const auto& [id, t] : trials_->all())
      if (t.status == TrialStatus::kCompleted && t.number < limit) sorted_pool.push_back(&t);
  }
  std::sort(sorted_pool.begin(), sorted_pool.end(),
            [](const Trial* a, const Trial* b) { return a->number < b->number; });
  std::vector<ParetoPoint> sorted_points;
  auto usable = sorted_pool.begin();
  for (const Trial* t : sorted_pool) {
    std::vector<double> f = t->objectives;
    if (f.empty() && t->value) f = {*t->value};  // one objective, no constraints
    if (f.size() != goals_.size()) continue;
    f = Minimised(std::move(f), goals_);
    if (!std::all_of(f.begin(), f.end(), [](double v) { return std::isfinite(v); })) continue;
    *usable++ = t;
    sorted_points.push_back({std::move(f), t->violation});
  }
  sorted_pool.erase(usable, sorted_pool.end());
  std::vector<Member> elite;
  const size_t population = static_cast<size_t>(cfg_.population());
  const std::vector<std::vector<size_t>> fronts = NonDominatedFronts(sorted_points);
  for (size_t r = 0; r < fronts.size() && elite.size() < population; ++r) {
    std::vector<double> crowding = CrowdingDistances(sorted_points, fronts[r]);
    std::vector<size_t> by_crowding(fronts[r].size());
    for (size_t i = 0; i < by_crowding.size(); ++i) by_crowding[i] = i;
    // A front that does not fit gives its places to the least crowded.
    std::stable_sort(by_crowding.begin(), by_crowding.end(),
                     [&](size_t a, size_t b) { return crowding[a] > crowding[b]; });
    for (size_t i : by_crowding) {
      if (elite.size() == population) break;
      elite.push_back({sorted_pool[fronts[r][i]], r, crowding[i]});
    }
  }
  cached_limit_ = limit;
  cached_completed_ = completed;
  cached_elite_ = elite;
  return elite;
}

const Member& Nsga2::Tournament(const std::vector<Member>& elite, Rng* rng) const {
  const size_t n = elite.size();
  const Member& a = elite[static_cast<size_t>(rng->Uniform() * static_cast<double>(n)) % n];
  const Member& b = elite[static_cast<size_t>(rng->Uniform() * static_cast<double>(n)) % n];
  if (a.rank != b.rank) return a.rank < b.rank ? a : b;
  return b.crowding > a.crowding ? b : a;
}

double Nsga2::Sbx(int i, double x, double y, Rng* rng) const {
  const pb::Parameter& p = space_.param(i);
  const bool log = p.log() && p.min() > 0;
  auto in = [&](double v) { return log ? std::log(v) : v; };
  const double lo = in(p.min()), hi = in(p.max());
  double y1 = std::min(in(x), in(y)), y2 = std::max(in(x), in(y));
  if (!(y2 - y1 > 1e-14) || !(hi > lo)) return rng->Uniform() < 0.5 ? x : y;
  const double eta = cfg_.eta();
  auto betaq = [&](double beta, double u) {
    double alpha = 2 - std::pow(beta, -(eta + 1));
    return u <= 1 / alpha ? std::pow(u * alpha, 1 / (eta + 1))
                          : std::pow(1 / (2 - u * alpha), 1 / (eta + 1));
  };
  const double u = rng->Uniform();
  double c;
  if (rng->Uniform() < 0.5) {
    c = 0.5 * ((y1 + y2) - betaq(1 + 2 * (y1 - lo) / (y2 - y1), u) * (y2 - y1));
  } else {
    c = 0.5 * ((y1 + y2) + betaq(1 + 2 * (hi - y2) / (y2 - y1), u) * (y2 - y1));
  }
  c = std::clamp(c, lo, hi);
  double out = log ? std::exp(c) : c;
  // On the parameter's grid: a stepped float's, an int's (step 1 at least).
  const double step = p.type() == pb::PARAM_TYPE_INT ? std::max(1.0, p.step()) : p.step();
  if ((p.type() == pb::PARAM_TYPE_INT || p.has_step()) && step > 0)
    out = p.min() + std::round((out - p.min()) / step) * step;
  return std::clamp(out, p.min(), p.max());
}

Params Nsga2::Breed(const Trial& a, const Trial& b, Rng* rng, std::string* what) const {
  auto values = [&](const Trial& t) {
    std::vector<std::optional<double>> x(static_cast<size_t>(space_.size()));
    for (const auto& pv : t.params.params())
      for (int i = 0; i < space_.size(); ++i)
        if (space_.param(i).name() == pv.name()) x[i] = InternalValue(space_.param(i), pv.value());
    return x;
  };
  const std::vector<std::optional<double>> xa = values(a), xb = values(b);
  const bool cross = rng->Uniform() < cfg_.crossover_prob();
  std::string mutated;
  Params child = space_.Choose([&](int i) {
    const pb::Parameter& p = space_.param(i);
    std::optional<double> v = xa[i] ? xa[i] : xb[i];
    const bool categorical = p.type() == pb::PARAM_TYPE_CATEGORICAL;
    if (cross && xa[i] && xb[i]) {
      v = categorical ? (rng->Uniform() < cfg_.swapping_prob() ? xb[i] : xa[i])
                      : std::optional<double>(Sbx(i, *xa[i], *xb[i], rng));
    }
    const bool redraw =
        p.type() != pb::PARAM_TYPE_CONSTANT && rng->Uniform() < cfg_.mutation_prob();
    if (redraw) mutated += (mutated.empty() ? "" : ", ") + p.name();
    if (redraw || !v) return space_.FromUnit(i, rng->Uniform());
    return ExternalValue(p, *v);
  });
  *what = std::string(cross ? "crossover" : "a copy") + " of trials " + std::to_string(a.number) +
          " and " + std::to_string(b.number) + (mutated.empty() ? "" : "; redrawn: " + mutated);
  return child;
}

Params Nsga2::Propose(int64_t k, std::string* origin) {
  const int64_t population = cfg_.population();
  const int64_t generation = k / population;
  const std::string head = "NSGA-II generation " + std::to_string(generation) + ": ";
  std::vector<Member> elite;
  if (generation > 0) elite = Elite(generation * population);
  if (elite.size() < 2) {
    *origin = head + (generation == 0 ? std::string("quasi-random start-up point")
                                      : "quasi-random point (fewer than 2 trials of the earlier "
                                        "generations have completed)");
    return PointOrDraw(*startup_, space_, seed_, k);
  }
  Rng rng(HashKey({seed_, static_cast<uint64_t>(k), kNsga2Salt}));
  size_t front = 0;
  while (front < elite.size() && elite[front].rank == 0) ++front;
  const std::string from = "the elite of " + std::to_string(elite.size()) + " completed trials (" +
                           std::to_string(front) + " on its first front)";
  for (int draw = 0; draw < kChildDraws; ++draw) {
    const Member& a = Tournament(elite, &rng);
    const Member& b = Tournament(elite, &rng);
    std::string what;
    Params child = Breed(*a.trial, *b.trial, &rng, &what);
    if (!space_.Feasible(child)) continue;
    *origin = head + what + ", from " + from +
              (draw > 0 ? "; bred again " + std::to_string(draw) +
                              " time(s): a parameter constraint was broken"
                        : "");
    return child;
  }
  for (int draw = 0; draw < kFeasibleDraws; ++draw) {
    Params p = space_.Sample([&](int) { return rng.Uniform(); });
    if (!space_.Feasible(p)) continue;
    *origin = head + "a uniform draw: " + std::to_string(kChildDraws) +
              " children all broke a parameter constraint";
    return p;
  }
  *origin = head + "quasi-random point (no draw satisfied the parameter constraints)";
  return PointOrDraw(*startup_, space_, seed_, k);
}

}  // namespace

std::unique_ptr<Scheduler> MakeNsga2(const pb::Study& study, const SearchSpace& space,
                                     const TrialTable* trials, int64_t created) {
  return std::make_unique<Nsga2>(study, space, trials, created);
}

}  // namespace sweep
