// A trial's final network, rebuilt outside the tuner: the study's knobs and
// the trial's parameters give the architecture, its last checkpoint the
// weights, and the study's data (read again, as the runner read it) the
// input preparation and class names. For `sweep export-model` and `sweep
// predict`; the data files must be readable where this runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/trial_ref.h"
#include "common/status.h"
#include "nn/gbdt/booster.h"
#include "nn/trainer.h"
#include "storage/reader.h"

namespace sweep {

struct TrialModel {
  TrialRef ref;
  pb::Study study;
  int64_t step = 0;  // the checkpoint's epoch
  nn::Splits data;   // as the trial trained on it
  std::unique_ptr<nn::Backend> backend;
  std::unique_ptr<nn::Trainer> trainer;  // holds the network
  std::unique_ptr<nn::Booster> trees;    // or the trees (model: gbdt), and no trainer
};

// `args`: [STUDY] [TRIAL]; no trial: the study's best completed one.
Result<TrialRef> ResolveModelTrial(Reader& reader, const std::vector<std::string>& args);

Result<std::unique_ptr<TrialModel>> LoadTrialModel(Reader& reader, const TrialRef& ref);

// Both of the above on database `db`, read-only: what export-model and
// predict load.
Result<std::unique_ptr<TrialModel>> LoadTrialModel(const std::string& db,
                                                   const std::vector<std::string>& args);

}  // namespace sweep
