// The search over model families for a table: gradient-boosted trees
// (gbdt), a network (mlp) and a linear model (linear: an mlp with no hidden
// layer), each family's knobs conditional on `model`. `model: auto` on a
// csv table becomes this space when the study is validated, and
// `sweep automl` writes it into the study file it runs. The ranges hold
// XGBoost's defaults and FLAML's kind of ranges; they were run (not yet
// tuned) on scikit-learn's tables and generated ones (bench/RESULTS.md,
// "sweep automl against FLAML"); docs/train.md lists them.
#pragma once

#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

// The parameters, `model` first, leaving out every knob `study` fixes in
// task.train or searches already (the user's choice stands). `max_batch`:
// the training rows, where known (batch sizes above it are left out).
std::vector<pb::Parameter> ModelFamilySpace(const pb::Study& study, int max_batch = 0);

// Whether the algorithm searches a conditional space of families: grid
// (floats need steps), gp (no conditional parameters) and pbt do not.
bool SearchesFamilies(pb::AlgorithmType type);

// Where task.train.model is `auto`, the data is a csv table, `model` is not
// searched and the algorithm SearchesFamilies: clears it and appends
// ModelFamilySpace. Returns whether it did. Images and npy arrays keep
// `auto` (the runner picks cnn or mlp from their shape); validation refuses
// `auto` on a table with another algorithm.
bool ExpandAutoModel(pb::Study* study);

}  // namespace sweep
