// A trained network as an ONNX model (opset 17, IR 8, checked with the
// ONNX checker before it is returned), with its input preparation and its
// class names inside, so it takes the same raw inputs as the training data:
//
// - tables: one float32 input "input" of N x F, the numeric feature columns
//   in file order (a CSV table's numeric columns; NaN for a missing cell
//   where the study fills them with the mean); standardisation (and the
//   missing indicators) happen inside. A CSV table with text columns cannot
//   be exported yet: their one-hot encoding needs string inputs.
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
