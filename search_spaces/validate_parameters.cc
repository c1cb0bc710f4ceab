// Study validation of `parameters`: names, types, ranges, steps, choices and
// conditions (no cycles, parents that can take the values).
#include <cmath>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "common/nearest_word.h"
#include "common/values.h"
#include "search_spaces/validate_internal.h"

namespace sweep::validate_internal {

namespace {

// Does `step` divide (max - min) exactly (up to rounding)?
bool StepFits(double min, double max, double step) {
  double n = (max - min) / step;
  return std::fabs(n - std::round(n)) <= 1e-9 * std::max(1.0, std::fabs(n));
}

void CheckNumericParam(const pb::Parameter& p, const std::string& path, Checker* c) {
  bool is_int = p.type() == pb::PARAM_TYPE_INT;
  if (!p.has_min())
    c->Fail(path + ".min",
            "is required for a " + std::string(is_int ? "int" : "float") + " parameter");
  if (!p.has_max())
    c->Fail(path + ".max",
            "is required for a " + std::string(is_int ? "int" : "float") + " parameter");
  if (!p.has_min() || !p.has_max()) return;
  bool finite = true;
  for (auto [name, v] : {std::pair{"min", p.min()}, std::pair{"max", p.max()}}) {
    if (!std::isfinite(v)) {
      c->Fail(path + "." + name, "must be a finite number, got " + Num(v));
      finite = false;
    } else if (is_int && !IsInteger(v)) {
      c->Fail(path + "." + name, "must be an integer for an int parameter, got " + Num(v));
      finite = false;
    }
  }
  if (!finite) return;
  if (p.min() >= p.max()) {
    c->Fail(path + ".min", "min (" + Num(p.min()) + ") must be < max (" + Num(p.max()) + ")");
    return;
  }
  if (p.log() && p.min() <= 0) {
    c->Fail(path + ".min", "min (" + Num(p.min()) + ") must be > 0 for a log-scale parameter");
  }
  if (p.has_step()) {
    double s = p.step();
    if (!std::isfinite(s) || s <= 0) {
      c->Fail(path + ".step", "step (" + Num(s) + ") must be > 0");
    } else if (is_int && !IsInteger(s)) {
      c->Fail(path + ".step", "step (" + Num(s) + ") must be an integer for an int parameter");
    } else if (p.log() && !is_int) {
      c->Fail(path + ".step", "step cannot be combined with log for a float parameter");
    } else if (s > p.max() - p.min() || !StepFits(p.min(), p.max(), s)) {
      c->Fail(path + ".step", "step (" + Num(s) + ") does not fit the range [" + Num(p.min()) +
                                  ", " + Num(p.max()) +
                                  "]: (max - min) must be a multiple of step");
    }
  }
  if (p.values_size() > 0) c->Fail(path + ".values", "is only for categorical parameters");
  if (p.has_value()) c->Fail(path + ".value", "is only for constant parameters");
}

void CheckValueIsUsable(const pb::Value& v, const std::string& path, Checker* c) {
  if (v.kind_case() == pb::Value::kNumber && !std::isfinite(v.number())) {
    c->Fail(path, "must be finite, got " + Num(v.number()));
  }
  if (v.kind_case() == pb::Value::KIND_NOT_SET) c->Fail(path, "must be set");
}

// Could parameter p ever take value v? (for checking conditions)
bool CanTake(const pb::Parameter& p, const pb::Value& v) {
  switch (p.type()) {
    case pb::PARAM_TYPE_CATEGORICAL:
      for (const auto& x : p.values()) {
        if (ValuesEqual(x, v)) return true;
      }
      return false;
    case pb::PARAM_TYPE_CONSTANT:
      return ValuesEqual(p.value(), v);
    case pb::PARAM_TYPE_INT: {
      double d;
      if (!ValueAsDouble(v, &d) || v.kind_case() == pb::Value::kFlag || !IsInteger(d)) return false;
      if (d < p.min() || d > p.max()) return false;
      double step = p.step();
      return std::fmod(d - p.min(), step) == 0;
    }
    default:
      return false;
  }
}

}  // namespace

void CheckParameters(const pb::Study& study, Checker* c) {
  static const std::regex kName(R"([A-Za-z_][A-Za-z0-9_.\-]*)");
  if (study.parameters_size() == 0) c->Fail("parameters", "a study needs at least one parameter");
  std::map<std::string, const pb::Parameter*> by_name;
  for (const auto& p : study.parameters()) {
    std::string path = "parameters." + p.name();
    if (!std::regex_match(p.name(), kName) || p.name().size() > 128) {
      c->Fail(path, "parameter names must match [A-Za-z_][A-Za-z0-9_.-]* (at most 128 characters)");
    }
    if (!by_name.emplace(p.name(), &p).second)
      c->Fail(path, "duplicate parameter name '" + p.name() + "'");
  }
  for (const auto& p : study.parameters()) {
    std::string path = "parameters." + p.name();
    switch (p.type()) {
      case pb::PARAM_TYPE_FLOAT:
      case pb::PARAM_TYPE_INT:
        CheckNumericParam(p, path, c);
        break;
      case pb::PARAM_TYPE_CATEGORICAL: {
        if (p.values_size() == 0)
          c->Fail(path + ".values", "a categorical parameter needs at least one value");
        for (int i = 0; i < p.values_size(); ++i) {
          std::string vp = path + ".values[" + std::to_string(i) + "]";
          CheckValueIsUsable(p.values(i), vp, c);
          for (int j = 0; j < i; ++j) {
            if (ValuesEqual(p.values(i), p.values(j))) {
              c->Fail(vp, "duplicate choice " + ValueToString(p.values(i)));
            }
          }
        }
        for (const char* f : {"min", "max", "step"}) {
          if (p.GetReflection()->HasField(p, p.GetDescriptor()->FindFieldByName(f))) {
            c->Fail(path + "." + f, "is not allowed for a categorical parameter");
          }
        }
        if (p.log()) c->Fail(path + ".log", "is not allowed for a categorical parameter");
        break;
      }
      case pb::PARAM_TYPE_CONSTANT:
        if (!p.has_value())
          c->Fail(path + ".value", "a constant parameter needs a value");
        else
          CheckValueIsUsable(p.value(), path + ".value", c);
        if (p.has_min() || p.has_max() || p.has_step() || p.values_size() > 0) {
          c->Fail(path, "a constant parameter takes only `value`");
        }
        break;
      default:
        c->Fail(path + ".type", "is required (float, int, categorical or constant)");
    }
    std::set<std::string> parents;
    for (const auto& cond : p.when()) {
      std::string cp = path + ".when." + cond.parent();
      if (!parents.insert(cond.parent()).second)
        c->Fail(cp, "duplicate condition on '" + cond.parent() + "'");
      auto it = by_name.find(cond.parent());
      if (cond.parent() == p.name()) {
        c->Fail(cp, "a parameter cannot depend on itself");
        continue;
      }
      if (it == by_name.end()) {
        std::vector<std::string> names;
        for (const auto& q : study.parameters()) names.push_back(q.name());
        c->Fail(cp, "condition names a missing parameter '" + cond.parent() + "'" +
                        DidYouMean(cond.parent(), names));
        continue;
      }
      if (cond.values_size() == 0) c->Fail(cp, "a condition needs at least one value");
      const pb::Parameter& parent = *it->second;
      if (parent.type() == pb::PARAM_TYPE_FLOAT) {
        c->Fail(cp, "a condition's parent must be categorical, int or constant, not float");
        continue;
      }
      for (const auto& v : cond.values()) {
        if (!CanTake(parent, v)) {
          c->Fail(cp,
                  "parameter '" + cond.parent() + "' never takes the value " + ValueToString(v));
        }
      }
    }
  }
  // Cycles: depth-first search over parent edges.
  std::map<std::string, int> state;  // 0 new, 1 on stack, 2 done
  std::function<bool(const std::string&, std::vector<std::string>*)> visit =
      [&](const std::string& name, std::vector<std::string>* stack) -> bool {
    state[name] = 1;
    stack->push_back(name);
    for (const auto& cond : by_name[name]->when()) {
      if (!by_name.count(cond.parent()) || cond.parent() == name) continue;
      int s = state[cond.parent()];
      if (s == 1) {
        stack->push_back(cond.parent());
        return true;
      }
      if (s == 0 && visit(cond.parent(), stack)) return true;
    }
    stack->pop_back();
    state[name] = 2;
    return false;
  };
  for (const auto& p : study.parameters()) {
    std::vector<std::string> stack;
    if (state[p.name()] == 0 && visit(p.name(), &stack)) {
      std::string cycle;
      for (const auto& s : stack) cycle += (cycle.empty() ? "" : " -> ") + s;
      c->Fail("parameters." + stack.back() + ".when", "conditions form a cycle: " + cycle);
      return;
    }
  }
}

}  // namespace sweep::validate_internal
