// A point a person chose (`sweep enqueue`) or another study holds (`--from`),
// checked against a study's space: every active parameter present with a
// value it may take, nothing else.
#pragma once

#include <string_view>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "search_spaces/space.h"

namespace sweep {

// Whether parameter `p` may take `v` (a choice, in range, on its step).
bool ValidValue(const pb::Parameter& p, const pb::Value& v);

// Ok when `params` is exactly a point of `space`: parents first, every
// active parameter present with a valid value, nothing else, and every
// parameter constraint holds; else an error naming each problem (an unknown
// name with the nearest one, a missing or inactive parameter, a value out
// of range with the range, the constraint it breaks).
Status CheckPoint(const SearchSpace& space, const pb::ParamSet& params);

// `{"lr": 0.01, "optimizer": "adam"}` as a point of `space` (numbers read as
// the parameter's type: 64 is an int for an int parameter), checked by
// CheckPoint; the parameters in the space's order.
Result<pb::ParamSet> PointFromJson(const SearchSpace& space, std::string_view json);

}  // namespace sweep
