// Parameter value helpers.
#include "common/values.h"

#include "common/json.h"

namespace sweep {

bool ValueAsDouble(const pb::Value& v, double* out) {
  switch (v.kind_case()) {
    case pb::Value::kNumber:
      *out = v.number();
      return true;
    case pb::Value::kInteger:
      *out = static_cast<double>(v.integer());
      return true;
    case pb::Value::kFlag:
      *out = v.flag() ? 1.0 : 0.0;
      return true;
    default:
      return false;
  }
}

bool ValuesEqual(const pb::Value& a, const pb::Value& b) {
  double x, y;
  bool an = a.kind_case() == pb::Value::kNumber || a.kind_case() == pb::Value::kInteger;
  bool bn = b.kind_case() == pb::Value::kNumber || b.kind_case() == pb::Value::kInteger;
  if (an && bn && ValueAsDouble(a, &x) && ValueAsDouble(b, &y)) return x == y;
  if (a.kind_case() != b.kind_case()) return false;
  if (a.kind_case() == pb::Value::kText) return a.text() == b.text();
  if (a.kind_case() == pb::Value::kFlag) return a.flag() == b.flag();
  return a.kind_case() == pb::Value::KIND_NOT_SET;
}

std::string ValueToString(const pb::Value& v) {
  switch (v.kind_case()) {
    case pb::Value::kNumber:
      return FormatDouble(v.number());
    case pb::Value::kInteger:
      return std::to_string(v.integer());
    case pb::Value::kText:
      return v.text();
    case pb::Value::kFlag:
      return v.flag() ? "true" : "false";
    default:
      return "null";
  }
}

std::string ValueToJson(const pb::Value& v) {
  switch (v.kind_case()) {
    case pb::Value::kNumber:
      return JsonNumber(v.number());
    case pb::Value::kText:
      return JsonString(v.text());
    default:
      return ValueToString(v);
  }
}

std::string ParamsToJson(const google::protobuf::RepeatedPtrField<pb::ParamValue>& params) {
  std::string out = "{";
  bool first = true;
  for (const auto& p : params) {
    if (!first) out += ", ";
    first = false;
    AppendJsonString(&out, p.name());
    out += ": ";
    out += ValueToJson(p.value());
  }
  out += "}";
  return out;
}

pb::Value NumberValue(double v) {
  pb::Value out;
  out.set_number(v);
  return out;
}

pb::Value IntegerValue(int64_t v) {
  pb::Value out;
  out.set_integer(v);
  return out;
}

}  // namespace sweep
