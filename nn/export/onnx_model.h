// A trained network as an ONNX model (opset 17, IR 8, checked with the
// ONNX checker before it is returned), with its input preparation and its
// class names inside, so it takes the same raw inputs as the training data:
//
// - tables: a float32 input "input" of N x F, the numeric feature columns
//   in file order (NaN for a missing cell where the study fills them with
//   the mean), and, when the table has text columns, a string input "text"
//   of N x T, the text columns in file order, each cell as the CSV has it
//   without surrounding spaces. Standardisation, the missing indicators and
//   the one-hot encoding (ai.onnx.ml's OneHotEncoder; a value not seen in
//   training is all zeros, as in training) happen inside. The metadata's
//   "input_columns" and "text_columns" name the columns.
// - images: float32 N x H x W x C in the data's own units (pixels 0-255 for
//   byte images), normalised inside and transposed to channels first.
//
// Outputs: classification "probabilities" (N x classes, softmax) and
// "class" (int64 index into the metadata's "classes", a JSON list of the
// class names); regression "prediction" (N x 1, in the target's units).
#pragma once

#include <string>

#include "common/status.h"
#include "nn/data/examples.h"
#include "nn/model.h"

namespace sweep::nn {

// `model`'s parameters are read from its backend; `data` describes its
// inputs (Splits of the trial, as it trained). `name` names the graph.
Result<std::string> ExportOnnx(Model& model, const Splits& data, const std::string& name);

}  // namespace sweep::nn
