// Helpers for parameter values (pb::Value): equality, display and JSON.
#pragma once

#include <string>

#include "proto/sweep.pb.h"

namespace sweep {

bool ValuesEqual(const pb::Value& a, const pb::Value& b);
// For humans: 0.5, 3, sgd, true.
std::string ValueToString(const pb::Value& v);
// JSON text: 0.5, 3, "sgd", true.
std::string ValueToJson(const pb::Value& v);
// {"x1": 0.5, "optimizer": "sgd"} in the given order.
std::string ParamsToJson(const google::protobuf::RepeatedPtrField<pb::ParamValue>& params);
// Numeric view of a value; false for strings.
bool ValueAsDouble(const pb::Value& v, double* out);
pb::Value NumberValue(double v);
pb::Value IntegerValue(int64_t v);

}  // namespace sweep
