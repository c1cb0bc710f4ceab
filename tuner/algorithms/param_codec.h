// A parameter's values in the form the model-based samplers (TPE, GP) work
// in: a number for numeric parameters, the index of the choice for
// categorical ones; and back.
#pragma once

#include <optional>

#include "proto/sweep.pb.h"
#include "tuner/algorithms/parzen.h"

namespace sweep {

// `v` as a number or a choice's index; nullopt if it is not one of the
// parameter's values (outside the bounds, not a choice, not finite).
std::optional<double> InternalValue(const pb::Parameter& p, const pb::Value& v);

// The parameter as a dimension: kind, bounds, log, grid step (an int's step
// is at least 1; a stepped dimension's high is its last grid value).
ParzenDim DimOf(const pb::Parameter& p);

// An internal value back as a parameter value: a choice by index, an int
// rounded, a float clamped to the bounds.
pb::Value ExternalValue(const pb::Parameter& p, double v);

}  // namespace sweep
