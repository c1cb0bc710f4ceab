// Parameter constraints on muParser: each expression compiled once, its
// variables bound to slots that a point's values fill before each Eval.
#include "search_spaces/parameter_constraints.h"

#include <muParser.h>

#include <cmath>
#include <deque>
#include <map>
#include <optional>

#include "common/nearest_word.h"

namespace sweep {

namespace {

// The names an expression may use: muParser's letters, digits and `_`, and
// the `.` parameter names may have (a name with `-` cannot be named: it
// reads as a subtraction).
const char kNameChars[] = "0123456789_.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

std::optional<double> NumberOf(const pb::Value& v) {
  switch (v.kind_case()) {
    case pb::Value::kNumber:
      return v.number();
    case pb::Value::kInteger:
      return static_cast<double>(v.integer());
    case pb::Value::kFlag:
      return v.flag() ? 1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

// Why parameter `p` cannot appear in an expression, or "" when it can.
std::string NotNumeric(const pb::Parameter& p) {
  if (p.type() == pb::PARAM_TYPE_CONSTANT && !NumberOf(p.value()))
    return "is a constant with a text value";
  if (p.type() == pb::PARAM_TYPE_CATEGORICAL) {
    for (const auto& v : p.values())
      if (!NumberOf(v)) return "is categorical with text values";
  }
  return "";
}

// Slots for the variables the parser meets (muParser's variable factory).
struct Slots {
  std::deque<double> values;
  std::vector<std::pair<std::string, double*>> named;
};

double* NewSlot(const char* name, void* data) {
  auto* slots = static_cast<Slots*>(data);
  slots->values.push_back(0);
  slots->named.emplace_back(name, &slots->values.back());
  return &slots->values.back();
}

bool Compares(const std::string& e) {
  return e.find('<') != std::string::npos || e.find('>') != std::string::npos ||
         e.find("==") != std::string::npos || e.find("!=") != std::string::npos;
}

}  // namespace

struct ParameterConstraints::Expression {
  std::string text;
  std::unique_ptr<mu::Parser> parser;
  std::unique_ptr<Slots> slots;
};

ParameterConstraints::~ParameterConstraints() = default;

const std::string& ParameterConstraints::expression(int i) const {
  return exprs_[static_cast<size_t>(i)].text;
}

int ParameterConstraints::size() const { return static_cast<int>(exprs_.size()); }

namespace {

// Compiles `text` into `e`, naming the first problem.
Status Compile(const pb::Study& study, const std::string& text, std::unique_ptr<mu::Parser>* parser,
               std::unique_ptr<Slots>* slots) {
  if (text.empty()) return Status::InvalidArgument("is empty");
  if (text.size() > 1000) return Status::InvalidArgument("is longer than 1000 characters");
  if (!Compares(text))
    return Status::InvalidArgument("'" + text +
                                   "' compares nothing; write a condition, e.g. 'a * b <= 100'");
  *parser = std::make_unique<mu::Parser>();
  *slots = std::make_unique<Slots>();
  try {
    (*parser)->DefineNameChars(kNameChars);
    (*parser)->SetVarFactory(NewSlot, slots->get());
    (*parser)->SetExpr(text);
    (*parser)->GetUsedVar();  // parses
  } catch (const mu::Parser::exception_type& e) {
    return Status::InvalidArgument("'" + text + "': " + e.GetMsg());
  }
  std::map<std::string, const pb::Parameter*> params;
  std::vector<std::string> names;
  for (const auto& p : study.parameters()) {
    params.emplace(p.name(), &p);
    names.push_back(p.name());
  }
  for (const auto& [name, slot] : (*slots)->named) {
    auto it = params.find(name);
    if (it == params.end()) {
      auto near = NearestWord(name, names);
      return Status::InvalidArgument("'" + text + "' names '" + name + "', which is no parameter" +
                                     (near ? "; did you mean '" + *near + "'?" : ""));
    }
    if (std::string why = NotNumeric(*it->second); !why.empty())
      return Status::InvalidArgument("'" + text + "' names '" + name + "', which " + why +
                                     "; an expression names numeric parameters only");
  }
  return Status::Ok();
}

}  // namespace

Status ParameterConstraints::Check(const pb::Study& study, const std::string& expression) {
  std::unique_ptr<mu::Parser> parser;
  std::unique_ptr<Slots> slots;
  return Compile(study, expression, &parser, &slots);
}

Result<std::shared_ptr<const ParameterConstraints>> ParameterConstraints::Create(
    const pb::Study& study) {
  if (study.parameter_constraints_size() == 0) return std::shared_ptr<const ParameterConstraints>();
  std::shared_ptr<ParameterConstraints> out(new ParameterConstraints);
  for (const std::string& text : study.parameter_constraints()) {
    Expression e;
    e.text = text;
    Status st = Compile(study, text, &e.parser, &e.slots);
    if (!st.ok()) return st.Wrap("parameter_constraints");
    out->exprs_.push_back(std::move(e));
  }
  return std::shared_ptr<const ParameterConstraints>(std::move(out));
}

int ParameterConstraints::FirstBroken(const Params& point) const {
  std::map<std::string, double> values;
  for (const auto& p : point)
    if (auto v = NumberOf(p.value())) values.emplace(p.name(), *v);
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < exprs_.size(); ++i) {
    const Expression& e = exprs_[i];
    bool inactive = false;
    for (const auto& [name, slot] : e.slots->named) {
      auto it = values.find(name);
      if (it == values.end()) {
        inactive = true;  // a conditional parameter this point does not have
        break;
      }
      *slot = it->second;
    }
    if (inactive) continue;
    double r = 0;
    try {
      r = e.parser->Eval();
    } catch (const mu::Parser::exception_type&) {
      r = std::nan("");
    }
    if (std::isnan(r) || r == 0) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace sweep
