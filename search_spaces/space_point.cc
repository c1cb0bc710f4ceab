#include "search_spaces/space_point.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "common/json.h"
#include "common/json_reader.h"
#include "common/nearest_word.h"
#include "common/values.h"
#include "search_spaces/parameter_constraints.h"

namespace sweep {

namespace {

std::string Range(const pb::Parameter& p) {
  switch (p.type()) {
    case pb::PARAM_TYPE_CATEGORICAL: {
      std::vector<std::string> choices;
      for (const auto& c : p.values()) choices.push_back(ValueToString(c));
      return "one of " + JoinWords(choices);
    }
    case pb::PARAM_TYPE_CONSTANT:
      return ValueToString(p.value());
    default:
      return std::string(p.type() == pb::PARAM_TYPE_INT ? "an integer" : "a number") + " in [" +
             FormatDouble(p.min()) + ", " + FormatDouble(p.max()) + "]" +
             (p.has_step() ? " on steps of " + FormatDouble(p.step()) : "");
  }
}

}  // namespace

bool ValidValue(const pb::Parameter& p, const pb::Value& v) {
  switch (p.type()) {
    case pb::PARAM_TYPE_CATEGORICAL:
      for (const auto& c : p.values())
        if (ValuesEqual(c, v)) return true;
      return false;
    case pb::PARAM_TYPE_CONSTANT:
      return ValuesEqual(p.value(), v);
    case pb::PARAM_TYPE_INT: {
      if (v.kind_case() != pb::Value::kInteger) return false;
      double d = static_cast<double>(v.integer());
      int64_t step = static_cast<int64_t>(std::max(1.0, p.step()));
      return d >= p.min() && d <= p.max() &&
             (v.integer() - static_cast<int64_t>(p.min())) % step == 0;
    }
    default: {
      double d = 0;
      if (!ValueAsDouble(v, &d) || !(d >= p.min() && d <= p.max())) return false;
      if (!p.has_step()) return true;
      double k = (d - p.min()) / p.step();
      return std::abs(k - std::round(k)) < 1e-9 * std::max(1.0, std::abs(k));
    }
  }
}

Status CheckPoint(const SearchSpace& space, const pb::ParamSet& params) {
  std::vector<std::string> problems, names;
  for (int i = 0; i < space.size(); ++i) names.push_back(space.param(i).name());
  std::vector<std::optional<pb::Value>> chosen(static_cast<size_t>(space.size()));
  std::set<std::string> used;
  for (int i : space.order()) {
    const pb::Parameter& p = space.param(i);
    const pb::ParamValue* found = nullptr;
    for (const auto& pv : params.params())
      if (pv.name() == p.name()) found = &pv;
    bool active = space.Active(i, chosen);
    if (found) used.insert(found->name());
    if (active && !found) {
      problems.push_back("'" + p.name() + "' is missing (" + Range(p) + ")");
    } else if (!active && found) {
      problems.push_back("'" + p.name() + "' does not apply here: its condition does not hold");
    } else if (found && !ValidValue(p, found->value())) {
      problems.push_back("'" + p.name() + "' is " + ValueToString(found->value()) +
                         ", which it never takes (" + Range(p) + ")");
    } else if (found) {
      chosen[static_cast<size_t>(i)] = found->value();
    }
  }
  // A misspelt name is most likely one of those missing.
  std::vector<std::string> unused;
  for (const std::string& n : names)
    if (!used.count(n)) unused.push_back(n);
  for (const auto& pv : params.params())
    if (!std::count(names.begin(), names.end(), pv.name()))
      problems.push_back("'" + pv.name() + "' is not a parameter of the study" +
                         DidYouMean(pv.name(), unused.empty() ? names : unused) +
                         " (its parameters: " + JoinWords(names) + ")");
  if (problems.empty() && space.constraints()) {
    int broken = space.constraints()->FirstBroken(params.params());
    if (broken >= 0)
      problems.push_back("it breaks the parameter constraint '" +
                         space.constraints()->expression(broken) + "'");
  }
  if (problems.empty()) return Status::Ok();
  std::string all;
  for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
  return Status::InvalidArgument(all);
}

Result<pb::ParamSet> PointFromJson(const SearchSpace& space, std::string_view json) {
  ASSIGN_OR_RETURN(std::vector<JsonField> fields, ParseJsonObject(json));
  pb::ParamSet given;
  std::set<std::string> seen;
  for (const JsonField& f : fields) {
    if (!seen.insert(f.key).second)
      return Status::InvalidArgument("'" + f.key + "' is given twice");
    const pb::Parameter* p = nullptr;
    for (int i = 0; i < space.size(); ++i)
      if (space.param(i).name() == f.key) p = &space.param(i);
    pb::ParamValue* pv = given.add_params();
    pv->set_name(f.key);
    pb::Value* v = pv->mutable_value();
    switch (f.kind) {
      case JsonField::Kind::kString:
        v->set_text(f.text);
        break;
      case JsonField::Kind::kBool:
        v->set_flag(f.flag);
        break;
      case JsonField::Kind::kNumber: {
        // 64 is an int where the parameter (or its choice) is one.
        bool whole = std::isfinite(f.number) && f.number == std::floor(f.number) &&
                     std::abs(f.number) < 9e15;
        pb::Value as_int;
        as_int.set_integer(static_cast<int64_t>(f.number));
        bool int_wanted = p && (p->type() == pb::PARAM_TYPE_INT ||
                                (p->type() != pb::PARAM_TYPE_FLOAT && ValidValue(*p, as_int)));
        if (whole && int_wanted)
          *v = as_int;
        else
          v->set_number(f.number);
        break;
      }
      default:
        return Status::InvalidArgument("'" + f.key + "' must be a number, a string or true/false");
    }
  }
  RETURN_IF_ERROR(CheckPoint(space, given));
  pb::ParamSet ordered;  // the space's order, as sampled points have it
  for (int i : space.order())
    for (const auto& pv : given.params())
      if (pv.name() == space.param(i).name()) *ordered.add_params() = pv;
  return ordered;
}

}  // namespace sweep
