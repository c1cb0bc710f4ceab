// Boosting a tree model step by step; see tree_task.h.
#include "trial_runner/tree_task.h"

#include <chrono>
#include <cmath>
#include <string>

#include "nn/gbdt/booster.h"
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
                       const nn::Splits& data, int threads) {
  TaskResult result;
  auto fail = [&](const std::string& why) {
    result.outcome = pb::TRIAL_OUTCOME_FAILED;
    result.error = why;
    return result;
  };
  nn::TreeConfig trees = config.trees;
  trees.threads = threads;
  auto booster = nn::Booster::Train(trees, data);
  if (!booster.ok()) return fail(booster.status().message());
  nn::Booster& b = **booster;
  int64_t step = 0;
  if (!a.checkpoint().empty()) {
    Status st = b.LoadCheckpoint(a.checkpoint());
    if (!st.ok()) return fail("cannot resume: " + st.message());
    step = a.checkpoint_step();
    result.step = step;  // a checkpoint of the last step leaves none to run
  }
  const int64_t steps = config.epochs, rounds = trees.rounds;
  while (step < steps) {
    if (ctx->StopRequested()) {
      result.outcome = pb::TRIAL_OUTCOME_CANCELLED;
      return result;
    }
    ++step;
    const int grow = static_cast<int>(step * rounds / steps) - b.rounds();
    const auto start = std::chrono::steady_clock::now();
    if (grow > 0) {
      Status st = b.Boost(grow);
      if (!st.ok()) return fail(st.message());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto train = b.PredictSet(false);
    auto val = b.PredictSet(true);
    if (!train.ok()) return fail(train.status().message());
    if (!val.ok()) return fail(val.status().message());
    const nn::Evaluation fit = EvaluateTrees(data, data.train, *train);
    if (!std::isfinite(fit.loss))
      return fail("diverged: training loss is " + std::to_string(fit.loss) + " at step " +
                  std::to_string(step));
    auto checkpoint = b.SaveCheckpoint();
    if (!checkpoint.ok()) return fail(checkpoint.status().message());
    ctx->Checkpoint(step, std::move(checkpoint).value());
    std::vector<pb::Metric> metrics = {M("train_loss", fit.loss)};
    AddEvaluation("val_", EvaluateTrees(data, data.validation, *val), &metrics);
    result.metrics = metrics;
    metrics.push_back(
        M("samples_per_s", seconds > 0 ? static_cast<double>(data.train.n) * grow / seconds : 0));
    metrics.push_back(M("epoch_seconds", seconds));
    metrics.push_back(M("cpu_threads", threads));
    ctx->Report(step, metrics);
    result.step = step;
  }
  auto test = b.Predict(data.test.values, data.test.n);
  if (!test.ok()) return fail(test.status().message());
  AddEvaluation("test_", EvaluateTrees(data, data.test, *test), &result.metrics);
  return result;
}

}  // namespace sweep
