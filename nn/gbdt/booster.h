// Gradient-boosted trees for tables (model: gbdt), on XGBoost through
// libsweep_nn_gbdt.so (gbdt_entry.cc), opened the first time a process
// makes a Booster: processes that never train or read a tree model never
// load XGBoost. Classification boosts softmax (binary: logistic) trees on
// the class index; regression squared-error trees on the standardised
// target. Missing values (NaN) go XGBoost's learned default way.
// Not thread-safe: one booster per trial.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "nn/data/examples.h"
#include "nn/gbdt/tree_config.h"

namespace sweep::nn {

class Booster {
 public:
  ~Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;

  // A booster that learns from `data`'s training rows and keeps its
  // predictions for them and the validation rows up to date (those rows
  // must be tables: Examples::values).
  static Result<std::unique_ptr<Booster>> Train(const TreeConfig& config, const Splits& data);
  // A booster for a saved model only (sweep predict): LoadCheckpoint next.
  static Result<std::unique_ptr<Booster>> ForPrediction(const Splits& data);

  // Boosts `count` more rounds. XGBoost seeds some of its sampling once per
  // booster, not per round: so where rows or columns are sampled, each call
  // starts a booster afresh from the model so far, as a resumed trial does,
  // and both grow the same trees (it costs the rebuilding of the training
  // rows' predictions, about a fifth more time at 10 steps).
  Status Boost(int count);
  int rounds() const { return rounds_; }

  // Per row: the classes' probabilities (Splits::outputs() of them), or the
  // standardised prediction. For the training (`validation` false) or
  // validation rows, or for `x` (rows × the training columns).
  Result<std::vector<float>> PredictSet(bool validation);
  Result<std::vector<float>> Predict(const std::vector<float>& x, int rows);

  // The model so far, for `data` (its fingerprint): "SWGB", a version, the
  // fingerprint, the rounds, XGBoost's UBJSON, and a CRC-32 of all before.
  Result<std::string> SaveCheckpoint() const;
  // Loads one SaveCheckpoint made; refused when it is not one, is damaged,
  // or was made for other data (the fingerprint).
  Status LoadCheckpoint(const std::string& bytes);
  // Whether `bytes` are a tree model's checkpoint (by its magic).
  static bool IsCheckpoint(const std::string& bytes);
  // The model as XGBoost's JSON text (the ONNX export reads its trees).
  Result<std::string> ModelJson() const { return Model(/*json=*/true); }

 private:
  Booster(const Splits& data) : data_(&data) {}
  // The XGBoost booster, with `params` ("name=value" lines), on the
  // training and validation rows (`with_rows`) or on none.
  Status Make(const std::string& params, bool with_rows);
  Result<std::string> Model(bool json = false) const;  // XGBoost's UBJSON, or JSON text
  Status LoadModel(const std::string& model);
  // Per row, what one prediction call returned, as Splits::outputs() values.
  Result<std::vector<float>> Outputs(const float* p, uint64_t len, int rows) const;

  const Splits* data_;
  void* handle_ = nullptr;
  int rounds_ = 0;
  bool samples_ = false;  // subsample or colsample_bytree below 1
  int columns_ = 0;
};

}  // namespace sweep::nn
