// The train task: builds a network from the study's knobs (fixed in
// task.train or searched as parameters), trains it with nn/ on the CPU or
// CUDA backend, reports every epoch, checkpoints every epoch, and reports the
// test metrics at the end. The data is an IDX folder, a CSV table or NumPy
// arrays (nn/data/data_source.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "nn/data/data_source.h"
#include "nn/trainer.h"
#include "trial_runner/task.h"

namespace sweep {

// Where this runner process trains: the CPU, or CUDA devices (the first
// gpus_per_trial of them for one trial). Set once by the runner at start-up.
struct TrainDevice {
  bool cuda = false;
  std::vector<int> gpus;  // CUDA device indices
};
void SetTrainDevice(TrainDevice device);
const TrainDevice& CurrentTrainDevice();

// What a trial trains on and with how many threads, beside its config.
struct TrialSetup {
  nn::DataSpec data;
  int validation = -1;  // -1 where the study sets none: the data's default applies
  int folds = 0;        // >= 2: cross-validation (nn::TrialSplits)
  int threads = 0;      // 0: the runner's share
  // The models the trial trains (and its checkpoint holds): the kept one,
  // and one per fold under cross-validation.
  size_t models() const { return folds >= 2 ? static_cast<size_t>(folds) + 1 : 1; }
};

// Merges task.train with the trial's parameters into a training config. A
// word a knob does not know (optimizer: rmsprop) is an error, never the default.
Result<nn::TrainConfig> TrainConfigFor(const pb::Assign& assign, TrialSetup* setup);

// The trial's splits from the loaded pool (nn::TrialSplits): the kept
// model's first, then the folds' under cross-validation.
Result<std::vector<nn::Splits>> SplitsFor(const TrialSetup& setup, const nn::Splits& pool,
                                          uint64_t seed);
// Only the first of them (sweep export-model, sweep predict).
Result<nn::Splits> KeptSplitsFor(const TrialSetup& setup, const nn::Splits& pool, uint64_t seed);

// model: auto becomes cnn for images and mlp for tables.
void ResolveModel(const nn::Splits& data, nn::TrainConfig* config);

TaskResult RunTrainTask(const pb::Assign& assign, TaskContext* ctx);

}  // namespace sweep
