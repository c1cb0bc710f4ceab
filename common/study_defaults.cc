// The defaults of a study file (docs/study.md lists the same values).
#include "common/study_defaults.h"

#include <algorithm>

#include "common/train_knobs.h"

namespace sweep {

namespace {

constexpr int32_t kSyntheticSteps = 1;
constexpr int32_t kCommandSteps = 1;
constexpr double kCommandGraceS = 10;
constexpr double kStallTimeoutS = 1800;
constexpr double kMaxCheckpointMb = 100;
constexpr double kCheckpointBudgetMb = 10240;
constexpr int32_t kMaxRetries = 2;
// The first trials to end all failing the same way stop the study (docs/study.md).
constexpr int32_t kFailFast = 3;
constexpr int64_t kMinResource = 1;
constexpr double kReductionFactor = 3;
constexpr int32_t kPbtPopulation = 8;
constexpr int64_t kPbtInterval = 1;
constexpr double kPbtQuantile = 0.25;
constexpr double kPbtResampleProb = 0.25;
constexpr int64_t kMedianGrace = 1;
constexpr int32_t kMedianMinTrials = 3;
constexpr int32_t kTpeStartupTrials = 10;
constexpr int32_t kGpStartupTrials = 10;  // Optuna's GPSampler's
constexpr int32_t kNsga2Population = 50;  // Optuna's NSGAIISampler's
constexpr int32_t kTpeCandidates = 24;
constexpr double kTpeGamma = 0.1;
constexpr double kTpePriorWeight = 1.0;
constexpr double kBohbRandomFraction = 1.0 / 3.0;
constexpr double kBohbTopFraction = 0.15;

int32_t DefaultEpochs() { return static_cast<int32_t>(FindTrainKnob("epochs")->default_number); }

bool Searched(const pb::Study& study, const std::string& name) {
  for (const auto& p : study.parameters())
    if (p.name() == name) return true;
  return false;
}

void ResolveAsha(int64_t resource, pb::AshaConfig* c) {
  if (!c->has_min_resource()) c->set_min_resource(kMinResource);
  if (!c->has_max_resource()) c->set_max_resource(resource);
  if (!c->has_reduction_factor()) c->set_reduction_factor(kReductionFactor);
  // The first rung; a study with no rungs (min_resource >= max_resource, a
  // validation error) would stop nothing.
  if (!c->has_grace_period())
    c->set_grace_period(c->min_resource() < c->max_resource() ? c->min_resource() : 1);
}

void ResolveHyperband(int64_t resource, pb::HyperbandConfig* c) {
  if (!c->has_min_resource()) c->set_min_resource(kMinResource);
  if (!c->has_max_resource()) c->set_max_resource(resource);
  if (!c->has_reduction_factor()) c->set_reduction_factor(kReductionFactor);
}

void ResolvePbt(int64_t resource, pb::PbtConfig* c) {
  if (!c->has_population()) c->set_population(kPbtPopulation);
  if (!c->has_perturbation_interval()) c->set_perturbation_interval(kPbtInterval);
  if (!c->has_quantile()) c->set_quantile(kPbtQuantile);
  if (!c->has_resample_prob()) c->set_resample_prob(kPbtResampleProb);
  if (!c->has_max_steps()) c->set_max_steps(resource);
}

void ResolveMedian(pb::MedianConfig* c) {
  if (!c->has_grace_period()) c->set_grace_period(kMedianGrace);
  if (!c->has_min_trials()) c->set_min_trials(kMedianMinTrials);
}

void ResolveTpe(pb::TpeConfig* c) {
  if (!c->has_n_startup_trials()) c->set_n_startup_trials(kTpeStartupTrials);
  if (!c->has_n_ei_candidates()) c->set_n_ei_candidates(kTpeCandidates);
  if (!c->has_gamma()) c->set_gamma(kTpeGamma);
  if (!c->has_prior_weight()) c->set_prior_weight(kTpePriorWeight);
  if (!c->has_multivariate()) c->set_multivariate(true);
  if (!c->has_constant_liar()) c->set_constant_liar(true);
}

void ResolveNsga2(const pb::Study& study, pb::Nsga2Config* c) {
  if (!c->has_population()) c->set_population(kNsga2Population);
  if (!c->has_crossover_prob()) c->set_crossover_prob(0.9);
  if (!c->has_mutation_prob()) {
    int searched = 0;
    for (const auto& p : study.parameters()) searched += p.type() != pb::PARAM_TYPE_CONSTANT;
    c->set_mutation_prob(std::max(1.0 / std::max(searched, 1), 0.1));
  }
  if (!c->has_swapping_prob()) c->set_swapping_prob(0.5);
  if (!c->has_eta()) c->set_eta(15);
}

void ResolveGp(pb::GpConfig* c) {
  if (!c->has_n_startup_trials()) c->set_n_startup_trials(kGpStartupTrials);
}

void ResolveBohb(const pb::Study& study, pb::BohbConfig* c) {
  int searched = 0;
  for (const auto& p : study.parameters())
    if (p.type() != pb::PARAM_TYPE_CONSTANT) ++searched;
  if (!c->has_min_points_in_model()) c->set_min_points_in_model(searched + 1);
  if (!c->has_random_fraction()) c->set_random_fraction(kBohbRandomFraction);
  if (!c->has_top_fraction()) c->set_top_fraction(kBohbTopFraction);
}

}  // namespace

bool UsesHyperbandBrackets(pb::AlgorithmType type) {
  return type == pb::ALGORITHM_TYPE_HYPERBAND || type == pb::ALGORITHM_TYPE_BOHB;
}

int64_t TaskResource(const pb::Task& task) {
  if (task.has_synthetic())
    return task.synthetic().has_steps() ? task.synthetic().steps() : kSyntheticSteps;
  if (task.has_train()) return task.train().has_epochs() ? task.train().epochs() : DefaultEpochs();
  if (task.has_command())
    return task.command().has_steps() ? task.command().steps() : kCommandSteps;
  return 1;
}

void ResolveDefaults(pb::Study* study) {
  if (!study->has_seed()) study->set_seed(0);
  pb::Task* task = study->mutable_task();
  if (!task->has_stall_timeout_s()) task->set_stall_timeout_s(kStallTimeoutS);
  pb::Resources* res = study->mutable_resources();
  if (!res->has_max_checkpoint_mb()) res->set_max_checkpoint_mb(kMaxCheckpointMb);
  if (!res->has_checkpoint_budget_mb()) res->set_checkpoint_budget_mb(kCheckpointBudgetMb);
  if (task->has_synthetic() && !task->synthetic().has_steps())
    task->mutable_synthetic()->set_steps(kSyntheticSteps);
  if (task->has_command()) {
    // `steps` stays unset when the file does not declare it (TaskResource
    // reads 1): a runner drops steps past a declared count with a warning,
    // and stores every step of a program that was told no count. A declared
    // 1 is the default (studies stored before kept the default as 1, and
    // their runners stored every step).
    pb::CommandTask* c = task->mutable_command();
    if (c->has_steps() && c->steps() == kCommandSteps) c->clear_steps();
    if (!c->has_timeout_s()) c->set_timeout_s(0);
    if (!c->has_grace_s()) c->set_grace_s(kCommandGraceS);
    if (!c->has_checkpoints()) c->set_checkpoints(false);
    if (!c->has_workdir()) c->set_workdir(".");
  }
  // A searched epochs knob is not fixed in the task (validation refuses both).
  if (task->has_train() && !task->train().has_epochs() && !Searched(*study, "epochs"))
    task->mutable_train()->set_epochs(DefaultEpochs());

  pb::Algorithm* alg = study->mutable_algorithm();
  if (!alg->has_max_retries()) alg->set_max_retries(kMaxRetries);
  if (!alg->has_fail_fast()) alg->set_fail_fast(kFailFast);
  int64_t resource = TaskResource(*task);
  switch (alg->type()) {
    case pb::ALGORITHM_TYPE_ASHA:
      ResolveAsha(resource, alg->mutable_asha());
      break;
    case pb::ALGORITHM_TYPE_HYPERBAND:
      ResolveHyperband(resource, alg->mutable_hyperband());
      break;
    case pb::ALGORITHM_TYPE_TPE:
      ResolveTpe(alg->mutable_tpe());
      break;
    case pb::ALGORITHM_TYPE_GP:
      ResolveGp(alg->mutable_gp());
      break;
    case pb::ALGORITHM_TYPE_AUTO:
      ResolveGp(alg->mutable_gp());
      ResolveTpe(alg->mutable_tpe());
      break;
    case pb::ALGORITHM_TYPE_BOHB:
      ResolveHyperband(resource, alg->mutable_hyperband());
      ResolveTpe(alg->mutable_tpe());
      ResolveBohb(*study, alg->mutable_bohb());
      break;
    case pb::ALGORITHM_TYPE_PBT:
      ResolvePbt(resource, alg->mutable_pbt());
      break;
    case pb::ALGORITHM_TYPE_MEDIAN:
      ResolveMedian(alg->mutable_median());
      break;
    case pb::ALGORITHM_TYPE_NSGA2:
      ResolveNsga2(*study, alg->mutable_nsga2());
      break;
    default:
      break;
  }
  for (auto& p : *study->mutable_parameters()) {
    if (p.type() == pb::PARAM_TYPE_INT && !p.has_step()) p.set_step(1);
  }
}

}  // namespace sweep
