// Gradient-boosted trees (model: gbdt) as an ONNX model with the same raw
// inputs, outputs and metadata as a network's export (onnx_model.h), so a
// user's code reads every family's model the same way. One ai.onnx.ml
// TreeEnsembleRegressor gives per row the boosted sums (XGBoost's margins):
// the standardised prediction for regression, one logit per class for
// several classes, and for two classes the logits [0, m] (softmax of them
// is XGBoost's sigmoid of m), followed by the same Softmax and ArgMax as a
// network's. A regressor rather than TreeEnsembleClassifier: its outputs are
// the margins alone, with no post-transform or two-class special case
// whose meaning runtimes have disagreed on.
#pragma once

#include <string>

#include "common/status.h"
#include "nn/data/examples.h"

namespace sweep::nn {

// `model_json`: XGBoost's JSON model (Booster::ModelJson) trained on
// `data`'s encoding; `native_missing`: it trained with missing: native (a
// missing number goes where each split learned, not to the mean).
Result<std::string> ExportTreesOnnx(const std::string& model_json, const Splits& data,
                                    bool native_missing, const std::string& name);

}  // namespace sweep::nn
