// Gradient-boosted trees (model: gbdt) as a train trial: `epochs` reports,
// the k-th once ⌊k × rounds / epochs⌋ trees are grown, each with the
// booster so far as the step's checkpoint (a paused or re-run trial goes on
// from it, growing the trees an uninterrupted one would), and the test
// metrics at the end. The same metrics as a network's (train_metrics.h).
// Cross-validated (task.train.folds), a booster per fold grows beside the
// kept one, step by step: val_* is the folds' mean, the checkpoint holds all
// (fold_checkpoint.h).
#pragma once

#include <vector>

#include "nn/data/examples.h"
#include "nn/evaluation.h"
#include "nn/trainer.h"
#include "trial_runner/task.h"

namespace sweep {

// `data`: the kept model's splits, then the folds' (TrialSplits);
// `threads`: XGBoost's, fixed for the trial.
TaskResult RunTreeTask(const pb::Assign& assign, TaskContext* ctx, const nn::TrainConfig& config,
                       const std::vector<nn::Splits>& data, int threads);

// How good a tree model's `outputs` (nn::Booster's, one row per example of
// `set`) are.
nn::Evaluation EvaluateTrees(const nn::Splits& data, const nn::Examples& set,
                             const std::vector<float>& outputs);

}  // namespace sweep
