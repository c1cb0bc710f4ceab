// Search space: dependency order, unit-to-value mapping and grid enumeration.
#include "search_spaces/space.h"

#include <cmath>
#include <map>

#include "common/json.h"
#include "common/values.h"
#include "search_spaces/parameter_constraints.h"

namespace sweep {

namespace {

// Number of points min, min+step, ..., max (validated to fit exactly).
int64_t StepCount(double min, double max, double step) {
  double n = std::floor((max - min) / step + 1e-9) + 1;
  return n >= 9e18 ? INT64_MAX : static_cast<int64_t>(n);
}

int64_t ClampIndex(double u, int64_t n) {
  int64_t i = static_cast<int64_t>(std::floor(u * static_cast<double>(n)));
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

}  // namespace

Result<SearchSpace> SearchSpace::Create(const pb::Study& study) {
  SearchSpace s;
  std::map<std::string, int> index;
  for (const auto& p : study.parameters()) {
    index[p.name()] = static_cast<int>(s.params_.size());
    s.params_.push_back(p);
  }
  s.parent_index_.resize(s.params_.size());
  std::vector<int> pending(s.params_.size(), 0);
  std::vector<std::vector<int>> children(s.params_.size());
  for (size_t i = 0; i < s.params_.size(); ++i) {
    for (const auto& c : s.params_[i].when()) {
      auto it = index.find(c.parent());
      if (it == index.end())
        return Status::InvalidArgument("unknown parent parameter '" + c.parent() + "'");
      s.parent_index_[i].push_back(it->second);
      children[it->second].push_back(static_cast<int>(i));
      ++pending[i];
    }
  }
  // Kahn's algorithm, taking the earliest-declared ready parameter each time.
  std::vector<bool> done(s.params_.size(), false);
  for (size_t round = 0; round < s.params_.size(); ++round) {
    int pick = -1;
    for (size_t i = 0; i < s.params_.size(); ++i) {
      if (!done[i] && pending[i] == 0) {
        pick = static_cast<int>(i);
        break;
      }
    }
    if (pick < 0) return Status::InvalidArgument("parameter conditions form a cycle");
    done[pick] = true;
    s.order_.push_back(pick);
    for (int c : children[pick]) --pending[c];
  }
  ASSIGN_OR_RETURN(s.constraints_, ParameterConstraints::Create(study));
  return s;
}

bool SearchSpace::Feasible(const Params& point) const {
  return !constraints_ || constraints_->Holds(point);
}

bool SearchSpace::Active(int i, const std::vector<std::optional<pb::Value>>& chosen) const {
  const auto& conds = params_[i].when();
  for (int c = 0; c < conds.size(); ++c) {
    const auto& parent = chosen[parent_index_[i][c]];
    if (!parent) return false;
    bool match = false;
    for (const auto& v : conds[c].values()) match = match || ValuesEqual(*parent, v);
    if (!match) return false;
  }
  return true;
}

pb::Value SearchSpace::FromUnit(int i, double u) const {
  const pb::Parameter& p = params_[i];
  switch (p.type()) {
    case pb::PARAM_TYPE_FLOAT: {
      if (p.has_step()) {
        int64_t n = StepCount(p.min(), p.max(), p.step());
        return NumberValue(
            std::min(p.max(), p.min() + static_cast<double>(ClampIndex(u, n)) * p.step()));
      }
      double v = p.log() ? std::exp(std::log(p.min()) + u * (std::log(p.max()) - std::log(p.min())))
                         : p.min() + u * (p.max() - p.min());
      return NumberValue(std::clamp(v, p.min(), p.max()));
    }
    case pb::PARAM_TYPE_INT: {
      int64_t lo = static_cast<int64_t>(p.min()), hi = static_cast<int64_t>(p.max());
      int64_t step = static_cast<int64_t>(p.step());
      int64_t n = (hi - lo) / step + 1;
      if (!p.log()) return IntegerValue(lo + ClampIndex(u, n) * step);
      // Log-uniform over [lo, hi + 1), then snapped to the step grid.
      double v = std::exp(
          std::log(static_cast<double>(lo)) +
          u * (std::log(static_cast<double>(hi) + 1.0) - std::log(static_cast<double>(lo))));
      int64_t k = static_cast<int64_t>(
          std::floor((std::floor(v) - static_cast<double>(lo)) / static_cast<double>(step)));
      return IntegerValue(lo + std::clamp<int64_t>(k, 0, n - 1) * step);
    }
    case pb::PARAM_TYPE_CATEGORICAL:
      return p.values(static_cast<int>(ClampIndex(u, p.values_size())));
    default:
      return p.value();
  }
}

std::optional<uint64_t> SearchSpace::GridCount(int i) const {
  const pb::Parameter& p = params_[i];
  switch (p.type()) {
    case pb::PARAM_TYPE_FLOAT:
    case pb::PARAM_TYPE_INT: {
      if (p.type() == pb::PARAM_TYPE_FLOAT && !(p.has_step() && p.step() > 0)) return std::nullopt;
      double step = p.type() == pb::PARAM_TYPE_INT ? std::max(1.0, p.step()) : p.step();
      // In doubles first: bounds up to 1e308 must not overflow an integer.
      double n = std::floor((p.max() - p.min()) / step + 1e-9) + 1;
      if (!(n >= 1)) return 1;
      if (n >= 1.8e19) return UINT64_MAX;
      if (p.type() == pb::PARAM_TYPE_INT && n < 9e18) {
        int64_t lo = static_cast<int64_t>(p.min()), hi = static_cast<int64_t>(p.max());
        return static_cast<uint64_t>((hi - lo) / static_cast<int64_t>(step)) + 1;
      }
      return static_cast<uint64_t>(n);
    }
    case pb::PARAM_TYPE_CATEGORICAL:
      return static_cast<uint64_t>(p.values_size());
    default:
      return 1;
  }
}

pb::Value SearchSpace::GridValue(int i, uint64_t k) const {
  const pb::Parameter& p = params_[i];
  switch (p.type()) {
    case pb::PARAM_TYPE_FLOAT:
      return NumberValue(std::min(p.max(), p.min() + static_cast<double>(k) * p.step()));
    case pb::PARAM_TYPE_INT:
      return IntegerValue(static_cast<int64_t>(p.min()) +
                          static_cast<int64_t>(k) *
                              std::max<int64_t>(1, static_cast<int64_t>(p.step())));
    case pb::PARAM_TYPE_CATEGORICAL:
      return p.values(static_cast<int>(k));
    default:
      return p.value();
  }
}

Params SearchSpace::ToParams(const std::vector<std::optional<pb::Value>>& chosen) const {
  Params out;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!chosen[i]) continue;
    pb::ParamValue* pv = out.Add();
    pv->set_name(params_[i].name());
    *pv->mutable_value() = *chosen[i];
  }
  return out;
}

void SearchSpace::Enumerate(size_t pos, std::vector<std::optional<pb::Value>>* chosen,
                            uint64_t limit, uint64_t* count, std::vector<Params>* out) const {
  if (*count > limit) return;
  if (pos == order_.size()) {
    ++*count;
    if (out && *count <= limit) out->push_back(ToParams(*chosen));
    return;
  }
  int i = order_[pos];
  if (!Active(i, *chosen)) {
    Enumerate(pos + 1, chosen, limit, count, out);
    return;
  }
  // One value at a time: a wide range is never built, and the loop stops
  // once the count passes the limit.
  uint64_t n = GridCount(i).value_or(0);
  for (uint64_t k = 0; k < n; ++k) {
    (*chosen)[i] = GridValue(i, k);
    Enumerate(pos + 1, chosen, limit, count, out);
    if (*count > limit) break;
  }
  (*chosen)[i].reset();
}

Result<uint64_t> SearchSpace::GridSize(uint64_t limit) const {
  // An upper bound first, exact when no parameter has conditions.
  uint64_t product = 1;
  bool conditional = false;
  for (size_t i = 0; i < params_.size(); ++i) {
    std::optional<uint64_t> n = GridCount(static_cast<int>(i));
    if (!n) {
      return Status::InvalidArgument("parameter '" + params_[i].name() +
                                     "' (float without a step) has infinitely many grid points");
    }
    conditional = conditional || params_[i].when_size() > 0;
    if (__builtin_mul_overflow(product, *n, &product)) product = UINT64_MAX;
  }
  if (product > limit && !conditional) {
    return Status::InvalidArgument("the grid has " +
                                   (product == UINT64_MAX
                                        ? std::string("more than 18446744073709551615")
                                        : std::to_string(product)) +
                                   " points, more than " + std::to_string(limit));
  }
  std::vector<std::optional<pb::Value>> chosen(params_.size());
  uint64_t count = 0;
  Enumerate(0, &chosen, limit, &count, nullptr);
  if (count > limit) {
    return Status::InvalidArgument("the grid has more than " + std::to_string(limit) + " points");
  }
  return count;
}

std::vector<Params> SearchSpace::GridPoints(uint64_t limit) const {
  std::vector<std::optional<pb::Value>> chosen(params_.size());
  uint64_t count = 0;
  std::vector<Params> out;
  Enumerate(0, &chosen, limit, &count, &out);
  return out;
}

std::string SearchSpace::Describe() const {
  std::string out;
  for (const auto& p : params_) {
    std::string line = "  " + p.name() + ": ";
    switch (p.type()) {
      case pb::PARAM_TYPE_FLOAT:
      case pb::PARAM_TYPE_INT:
        line += std::string(p.type() == pb::PARAM_TYPE_FLOAT ? "float" : "int") + " [" +
                FormatDouble(p.min()) + ", " + FormatDouble(p.max()) + "]";
        if (p.log()) line += " log";
        if (p.has_step() && (p.type() == pb::PARAM_TYPE_FLOAT || p.step() != 1))
          line += " step " + FormatDouble(p.step());
        break;
      case pb::PARAM_TYPE_CATEGORICAL: {
        line += "categorical {";
        for (int i = 0; i < p.values_size(); ++i)
          line += (i ? ", " : "") + ValueToString(p.values(i));
        line += "}";
        break;
      }
      default:
        line += "constant " + ValueToString(p.value());
    }
    for (const auto& c : p.when()) {
      line += " when " + c.parent() + " in {";
      for (int i = 0; i < c.values_size(); ++i)
        line += (i ? ", " : "") + ValueToString(c.values(i));
      line += "}";
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace sweep
