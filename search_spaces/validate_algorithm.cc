// Study validation of `algorithm`: the type, its own settings, and the limits
// on trials, budget and resources it shares with the task.
#include <string>

#include "common/duration.h"
#include "common/study_defaults.h"
#include "search_spaces/validate.h"
#include "search_spaces/validate_internal.h"

namespace sweep::validate_internal {

namespace {

constexpr int64_t kMaxTrials = 100000000;

// Resource bounds shared by hyperband and pbt: max must equal the task's
// steps (epochs), so that "completed" means fully trained.
void CheckMaxResource(const pb::Study& study, const char* path, int64_t value, Checker* c) {
  int64_t resource = TaskResource(study.task());
  if (value != resource) {
    c->Fail(path, std::to_string(value) + " must equal the task's steps or epochs (" +
                      std::to_string(resource) + ")");
  }
}

void CheckHyperband(const pb::Study& study, Checker* c) {
  const pb::HyperbandConfig& h = study.algorithm().hyperband();
  int64_t resource = TaskResource(study.task());
  CheckMaxResource(study, "algorithm.hyperband.max_resource", h.max_resource(), c);
  int64_t min_r = h.min_resource();
  if (min_r < 1) c->Fail("algorithm.hyperband.min_resource", "must be >= 1");
  if (min_r >= resource) {
    c->Fail("algorithm.hyperband.min_resource", "min_resource (" + std::to_string(min_r) +
                                                    ") must be below the task's steps or epochs (" +
                                                    std::to_string(resource) + ")");
  }
  if (!(h.reduction_factor() > 1 && h.reduction_factor() <= 100))
    c->Fail("algorithm.hyperband.reduction_factor", "must be in (1, 100]");
}

void CheckPbt(const pb::Study& study, Checker* c) {
  const pb::PbtConfig& p = study.algorithm().pbt();
  int64_t resource = TaskResource(study.task());
  CheckMaxResource(study, "algorithm.pbt.max_steps", p.max_steps(), c);
  if ((p.population() < 2 || p.population() > 10000))
    c->Fail("algorithm.pbt.population", "must be in [2, 10000]");
  int64_t interval = p.perturbation_interval();
  if (interval < 1 || interval >= resource) {
    c->Fail("algorithm.pbt.perturbation_interval",
            "must be >= 1 and below the task's steps or epochs (" + std::to_string(resource) + ")");
  }
  if (!(p.quantile() > 0 && p.quantile() <= 0.5))
    c->Fail("algorithm.pbt.quantile", "must be in (0, 0.5]");
  if (!(p.resample_prob() >= 0 && p.resample_prob() <= 1))
    c->Fail("algorithm.pbt.resample_prob", "must be in [0, 1]");
  int64_t population = p.population();
  if (study.algorithm().has_budget() && study.algorithm().budget() < population * resource) {
    c->Fail("algorithm.budget", "budget " + std::to_string(study.algorithm().budget()) +
                                    " is below population x max_steps (" +
                                    std::to_string(population * resource) + ")");
  }
  if (study.algorithm().has_max_trials() && study.algorithm().max_trials() < population) {
    c->Fail("algorithm.max_trials", "must be at least the population (" +
                                        std::to_string(population) + "); children count too");
  }
}

void CheckTpe(const pb::Study& study, Checker* c) {
  const pb::TpeConfig& t = study.algorithm().tpe();
  if (t.n_startup_trials() < 0 || t.n_startup_trials() > 100000)
    c->Fail("algorithm.tpe.n_startup_trials", "must be in [0, 100000]");
  if (t.n_ei_candidates() < 1 || t.n_ei_candidates() > 10000)
    c->Fail("algorithm.tpe.n_ei_candidates", "must be in [1, 10000]");
  if (!(t.gamma() > 0 && t.gamma() <= 1)) c->Fail("algorithm.tpe.gamma", "must be in (0, 1]");
  if (!(t.prior_weight() > 0 && t.prior_weight() <= 1e6))
    c->Fail("algorithm.tpe.prior_weight", "must be in (0, 1e6]");
  if (study.algorithm().type() != pb::ALGORITHM_TYPE_BOHB) return;
  const pb::BohbConfig& b = study.algorithm().bohb();
  if (b.min_points_in_model() < 1 || b.min_points_in_model() > 100000)
    c->Fail("algorithm.bohb.min_points_in_model", "must be in [1, 100000]");
  if (!(b.random_fraction() >= 0 && b.random_fraction() <= 1))
    c->Fail("algorithm.bohb.random_fraction", "must be in [0, 1]");
  if (!(b.top_fraction() > 0 && b.top_fraction() < 1))
    c->Fail("algorithm.bohb.top_fraction", "must be in (0, 1)");
}

// type: gp models numeric and categorical parameters that every trial has.
void CheckGp(const pb::Study& study, Checker* c) {
  const pb::GpConfig& g = study.algorithm().gp();
  if (g.n_startup_trials() < 1 || g.n_startup_trials() > 100000)
    c->Fail("algorithm.gp.n_startup_trials", "must be in [1, 100000]");
  if (study.algorithm().type() != pb::ALGORITHM_TYPE_GP) return;
  for (const pb::Parameter& p : study.parameters()) {
    if (p.when_size() == 0) continue;
    c->Fail("algorithm.type",
            "gp models parameters that every trial has; '" + p.name() +
                "' is conditional (when:): use type: tpe, or type: auto, which chooses tpe here");
    return;
  }
}

void CheckNsga2(const pb::Study& study, Checker* c) {
  const pb::Nsga2Config& n = study.algorithm().nsga2();
  if (!study.algorithm().has_max_trials()) c->Fail("algorithm.max_trials", "is required for nsga2");
  if (study.algorithm().has_budget())
    c->Fail("algorithm.budget", "is not used by nsga2: its generations count trials (max_trials)");
  if (n.population() < 2 || n.population() > 10000)
    c->Fail("algorithm.nsga2.population", "must be in [2, 10000]");
  for (auto [name, v] : {std::pair{"crossover_prob", n.crossover_prob()},
                         std::pair{"mutation_prob", n.mutation_prob()},
                         std::pair{"swapping_prob", n.swapping_prob()}}) {
    if (!(v >= 0 && v <= 1))
      c->Fail(std::string("algorithm.nsga2.") + name, "must be a probability in [0, 1]");
  }
  if (!(n.eta() > 0 && n.eta() <= 100)) c->Fail("algorithm.nsga2.eta", "must be in (0, 100]");
}

}  // namespace

void CheckAlgorithm(const pb::Study& study, Checker* c) {
  const pb::Algorithm& alg = study.algorithm();
  if (alg.type() == pb::ALGORITHM_TYPE_UNSPECIFIED) {
    c->Fail("algorithm.type",
            "is required (random, grid, quasirandom, asha, median, hyperband, pbt, tpe, gp, auto, "
            "bohb or nsga2)");
  }
  bool stopping = alg.type() == pb::ALGORITHM_TYPE_ASHA || alg.type() == pb::ALGORITHM_TYPE_MEDIAN;
  if (stopping && !alg.has_max_trials())
    c->Fail("algorithm.max_trials", "is required for asha and median");
  bool gp = alg.type() == pb::ALGORITHM_TYPE_GP || alg.type() == pb::ALGORITHM_TYPE_AUTO;
  if ((alg.type() == pb::ALGORITHM_TYPE_TPE || gp) && !alg.has_max_trials()) {
    c->Fail("algorithm.max_trials",
            std::string("is required for ") + (alg.type() == pb::ALGORITHM_TYPE_TPE  ? "tpe"
                                               : alg.type() == pb::ALGORITHM_TYPE_GP ? "gp"
                                                                                     : "auto"));
  }
  if (alg.has_budget() && alg.budget() < 1)
    c->Fail("algorithm.budget", "must be >= 1 (steps summed over trials)");
  if (alg.has_asha() && alg.type() != pb::ALGORITHM_TYPE_ASHA)
    c->Fail("algorithm.asha", "is only for type: asha");
  if (alg.has_median() && alg.type() != pb::ALGORITHM_TYPE_MEDIAN)
    c->Fail("algorithm.median", "is only for type: median");
  if (alg.has_hyperband() && !UsesHyperbandBrackets(alg.type()))
    c->Fail("algorithm.hyperband", "is only for type: hyperband or bohb");
  bool tpe = alg.type() == pb::ALGORITHM_TYPE_TPE || alg.type() == pb::ALGORITHM_TYPE_BOHB ||
             alg.type() == pb::ALGORITHM_TYPE_AUTO;
  if (alg.has_tpe() && !tpe) c->Fail("algorithm.tpe", "is only for type: tpe, bohb or auto");
  if (alg.has_gp() && !gp) c->Fail("algorithm.gp", "is only for type: gp or auto");
  if (gp) CheckGp(study, c);
  if (alg.has_bohb() && alg.type() != pb::ALGORITHM_TYPE_BOHB)
    c->Fail("algorithm.bohb", "is only for type: bohb");
  if (tpe) CheckTpe(study, c);
  if (alg.has_pbt() && alg.type() != pb::ALGORITHM_TYPE_PBT)
    c->Fail("algorithm.pbt", "is only for type: pbt");
  if (UsesHyperbandBrackets(alg.type())) CheckHyperband(study, c);
  if (alg.type() == pb::ALGORITHM_TYPE_PBT) CheckPbt(study, c);
  if (alg.type() == pb::ALGORITHM_TYPE_ASHA) {
    const pb::AshaConfig& a = alg.asha();
    int64_t resource = TaskResource(study.task());
    int64_t min_r = a.min_resource();
    if (min_r < 1) c->Fail("algorithm.asha.min_resource", "must be >= 1");
    if (a.max_resource() != resource) {
      c->Fail("algorithm.asha.max_resource", "max_resource (" + std::to_string(a.max_resource()) +
                                                 ") must equal the task's steps or epochs (" +
                                                 std::to_string(resource) + ")");
    }
    if (min_r >= resource) {
      c->Fail("algorithm.asha.min_resource", "min_resource (" + std::to_string(min_r) +
                                                 ") must be below the task's steps or epochs (" +
                                                 std::to_string(resource) + ")");
    }
    if (!(a.reduction_factor() > 1 && a.reduction_factor() <= 100)) {
      c->Fail("algorithm.asha.reduction_factor", "must be in (1, 100]");
    }
    if (a.grace_period() < 1) c->Fail("algorithm.asha.grace_period", "must be >= 1");
  }
  if (alg.type() == pb::ALGORITHM_TYPE_MEDIAN) {
    if (alg.median().grace_period() < 1) {
      c->Fail("algorithm.median.grace_period", "must be >= 1");
    }
    if (alg.median().min_trials() < 1) {
      c->Fail("algorithm.median.min_trials", "must be >= 1");
    }
  }
  if (alg.has_max_trials() && (alg.max_trials() < 1 || alg.max_trials() > kMaxTrials)) {
    c->Fail("algorithm.max_trials", "must be in [1, " + std::to_string(kMaxTrials) + "]");
  }
  if (alg.has_nsga2() && alg.type() != pb::ALGORITHM_TYPE_NSGA2)
    c->Fail("algorithm.nsga2", "is only for type: nsga2");
  if (alg.type() == pb::ALGORITHM_TYPE_NSGA2) CheckNsga2(study, c);
  if ((alg.type() == pb::ALGORITHM_TYPE_RANDOM || alg.type() == pb::ALGORITHM_TYPE_QUASIRANDOM) &&
      !alg.has_max_trials()) {
    c->Fail("algorithm.max_trials",
            "is required for " +
                std::string(alg.type() == pb::ALGORITHM_TYPE_RANDOM ? "random" : "quasirandom") +
                " search");
  }
  if (alg.has_max_concurrent() && alg.max_concurrent() < 1)
    c->Fail("algorithm.max_concurrent", "must be >= 1");
  if ((alg.max_retries() < 0 || alg.max_retries() > 100)) {
    c->Fail("algorithm.max_retries", "must be in [0, 100]");
  }
  if (alg.fail_fast() < 0 || alg.fail_fast() > 1000)
    c->Fail("algorithm.fail_fast", "must be in [0, 1000] trials (0: never stop the study early)");
  if (alg.has_time_limit()) {
    auto limit = ParseDuration(alg.time_limit().after());
    if (!limit.ok()) c->Fail("algorithm.time_limit.after", limit.status().message());
  }
}

}  // namespace sweep::validate_internal
