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

// Merges task.train with the trial's parameters into a training config. A
// word a knob does not know (optimizer: rmsprop) is an error, never the default.
// *validation is -1 where neither sets it (the data's default applies).
Result<nn::TrainConfig> TrainConfigFor(const pb::Assign& assign, nn::DataSpec* data,
                                       int* validation, int* threads);

// model: auto becomes cnn for images and mlp for tables.
void ResolveModel(const nn::Splits& data, nn::TrainConfig* config);

TaskResult RunTrainTask(const pb::Assign& assign, TaskContext* ctx);

}  // namespace sweep
