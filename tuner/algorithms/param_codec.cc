#include "tuner/algorithms/param_codec.h"

#include <algorithm>
#include <cmath>

#include "common/values.h"

namespace sweep {

std::optional<double> InternalValue(const pb::Parameter& p, const pb::Value& v) {
  if (p.type() == pb::PARAM_TYPE_CATEGORICAL) {
    for (int j = 0; j < p.values_size(); ++j)
      if (ValuesEqual(p.values(j), v)) return j;
    return std::nullopt;
  }
  double d = 0;
  if (!ValueAsDouble(v, &d) || !std::isfinite(d) || d < p.min() || d > p.max()) return std::nullopt;
  return d;
}

ParzenDim DimOf(const pb::Parameter& p) {
  ParzenDim d;
  if (p.type() == pb::PARAM_TYPE_CATEGORICAL) {
    d.kind = ParzenDim::Kind::kCategorical;
    d.choices = p.values_size();
    return d;
  }
  d.log = p.log();
  d.low = p.min();
  d.high = p.max();
  double step = p.type() == pb::PARAM_TYPE_INT ? std::max(1.0, p.step()) : p.step();
  if (p.type() == pb::PARAM_TYPE_INT || (p.has_step() && p.step() > 0)) {
    d.kind = ParzenDim::Kind::kDiscrete;
    d.step = step;
    // The last grid value, which max need not be.
    d.high = d.low + std::floor((d.high - d.low) / step + 1e-9) * step;
  }
  return d;
}

pb::Value ExternalValue(const pb::Parameter& p, double v) {
  switch (p.type()) {
    case pb::PARAM_TYPE_CATEGORICAL:
      return p.values(std::clamp(static_cast<int>(v), 0, p.values_size() - 1));
    case pb::PARAM_TYPE_INT:
      return IntegerValue(
          std::llround(std::clamp(std::isfinite(v) ? v : p.min(), p.min(), p.max())));
    default:
      return NumberValue(std::clamp(v, p.min(), p.max()));
  }
}

}  // namespace sweep
