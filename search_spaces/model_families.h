// The search over model families for a table: gradient-boosted trees
// (gbdt), a network (mlp) and a linear model (linear: an mlp with no hidden
// layer), each family's knobs conditional on `model`. `model: auto` on a
// csv table becomes this space when the study is validated, and
// `sweep automl` writes it into the study file it runs. The ranges were
// chosen on scikit-learn's tables and generated ones (bench/RESULTS.md,
// "AutoML on tables"); docs/train.md lists them.
#pragma once

#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

// The parameters, `model` first, leaving out every knob `study` fixes in
// task.train or searches already (the user's choice stands).
std::vector<pb::Parameter> ModelFamilySpace(const pb::Study& study);

// Where task.train.model is `auto` and the data is a csv table (and `model`
// is not searched): clears it and appends ModelFamilySpace. Returns whether
// it did. Images and npy arrays keep `auto` (the runner picks cnn or mlp
// from their shape).
bool ExpandAutoModel(pb::Study* study);

}  // namespace sweep
