// Boosting a tree model step by step; see tree_task.h.
#include "trial_runner/tree_task.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <string>

#include "nn/gbdt/booster.h"
#include "trial_runner/fold_checkpoint.h"
#include "trial_runner/train_metrics.h"

namespace sweep {

nn::Evaluation EvaluateTrees(const nn::Splits& data, const nn::Examples& set,
                             const std::vector<float>& outputs) {
  nn::EvaluationSum sum(data);
  const int k = data.outputs();
  if (outputs.size() != static_cast<size_t>(set.n) * k) return sum.Done();
  for (int i = 0; i < set.n; ++i) {
    if (data.problem == nn::Problem::kRegression) {
      const double d = static_cast<double>(outputs[i]) - set.targets[i];
      sum.AddLoss(d * d);
      sum.AddTarget(outputs[i], set.targets[i]);
    } else {
      sum.AddProbabilities(outputs.data() + static_cast<size_t>(i) * k, set.labels[i]);
    }
  }
  return sum.Done();
}

TaskResult RunTreeTask(const pb::Assign& a, TaskContext* ctx, const nn::TrainConfig& config,
                       const std::vector<nn::Splits>& data, int threads) {
  TaskResult result;
  auto fail = [&](const std::string& why) {
    result.outcome = pb::TRIAL_OUTCOME_FAILED;
    result.error = why;
    return result;
  };
  nn::TreeConfig trees = config.trees;
  trees.threads = threads;
  std::vector<std::unique_ptr<nn::Booster>> boosters;  // the kept one, then the folds'
  for (const nn::Splits& d : data) {
    auto booster = nn::Booster::Train(trees, d);
    if (!booster.ok()) return fail(booster.status().message());
    boosters.push_back(std::move(booster).value());
  }
  const bool folds = data.size() > 1;
  int64_t step = 0;
  if (!a.checkpoint().empty()) {
    auto parts = UnpackCheckpoints(a.checkpoint(), boosters.size());
    if (!parts.ok()) return fail("cannot resume: " + parts.status().message());
    for (size_t i = 0; i < boosters.size(); ++i) {
      Status st = boosters[i]->LoadCheckpoint((*parts)[i]);
      if (!st.ok()) return fail("cannot resume: " + st.message());
    }
    step = a.checkpoint_step();
    result.step = step;  // a checkpoint of the last step leaves none to run
  }
  nn::Booster& kept = *boosters.front();
  const nn::Splits& kept_data = data.front();
  const int64_t steps = config.epochs, rounds = trees.rounds;
  while (step < steps) {
    if (ctx->StopRequested()) {
      result.outcome = pb::TRIAL_OUTCOME_CANCELLED;
      return result;
    }
    ++step;
    const int grow = static_cast<int>(step * rounds / steps) - kept.rounds();
    double seconds = 0, kept_seconds = 0;  // every model's boosting; the kept one's
    for (size_t i = 0; i < boosters.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      Status st = grow > 0 ? boosters[i]->Boost(grow) : Status::Ok();
      if (!st.ok()) return fail(st.message());
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i == 0) kept_seconds = seconds;
    }
    auto train = kept.PredictSet(false);
    if (!train.ok()) return fail(train.status().message());
    const nn::Evaluation fit = EvaluateTrees(kept_data, kept_data.train, *train);
    if (!std::isfinite(fit.loss))
      return fail("diverged: training loss is " + std::to_string(fit.loss) + " at step " +
                  std::to_string(step));
    std::vector<nn::Evaluation> vals;
    std::vector<std::string> checkpoints;
    const bool send = step >= steps || ctx->CheckpointDue(step);
    for (size_t i = 0; i < boosters.size(); ++i) {
      if (!folds || i > 0) {
        auto val = boosters[i]->PredictSet(true);
        if (!val.ok()) return fail(val.status().message());
        vals.push_back(EvaluateTrees(data[i], data[i].validation, *val));
        if (folds && !std::isfinite(vals.back().loss))
          return fail("diverged: validation loss is " + std::to_string(vals.back().loss) +
                      " at step " + std::to_string(step) + " of fold " + std::to_string(i));
      }
      if (!send) continue;
      auto checkpoint = boosters[i]->SaveCheckpoint();
      if (!checkpoint.ok()) return fail(checkpoint.status().message());
      checkpoints.push_back(std::move(checkpoint).value());
    }
    if (send) ctx->Checkpoint(step, PackCheckpoints(checkpoints));
    std::vector<pb::Metric> metrics = {M("train_loss", fit.loss)};
    AddEvaluation("val_", MeanEvaluation(vals), &metrics);
    result.metrics = metrics;
    const double rows = static_cast<double>(kept_data.train.n) * grow;
    metrics.push_back(M("samples_per_s", kept_seconds > 0 ? rows / kept_seconds : 0));
    metrics.push_back(M("epoch_seconds", seconds));
    metrics.push_back(M("cpu_threads", threads));
    ctx->Report(step, metrics);
    result.step = step;
  }
  auto test = kept.Predict(kept_data.test.values, kept_data.test.n);
  if (!test.ok()) return fail(test.status().message());
  AddEvaluation("test_", EvaluateTrees(kept_data, kept_data.test, *test), &result.metrics);
  return result;
}

}  // namespace sweep
