// Study validation: every rule a study must meet before the tuner starts.
#include "search_spaces/validate.h"

#include <cmath>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "common/json.h"
#include "common/values.h"
#include "search_spaces/space.h"
#include "search_spaces/task_resource.h"

namespace sweep {

namespace {

constexpr uint64_t kMaxGridPoints = 1000000;
constexpr int64_t kMaxTrials = 100000000;

class Checker {
 public:
  explicit Checker(const SourceMap& source) : source_(source) {}

  void Fail(const std::string& path, const std::string& what) {
    errors_.push_back(source_.Where(path) + path + ": " + what);
  }
  bool ok() const { return errors_.empty(); }
  Status status() const {
    if (errors_.empty()) return Status::Ok();
    std::string all;
    for (const auto& e : errors_) all += (all.empty() ? "" : "\n") + e;
    return Status::Error(all);
  }

 private:
  const SourceMap& source_;
  std::vector<std::string> errors_;
};

std::string Num(double v) { return FormatDouble(v); }

bool IsInteger(double v) { return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15; }

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
      double step = p.has_step() ? p.step() : 1;
      return std::fmod(d - p.min(), step) == 0;
    }
    default:
      return false;
  }
}

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
        c->Fail(cp, "condition names a missing parameter '" + cond.parent() + "'");
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

void CheckSyntheticTask(const pb::Study& study, Checker* c) {
  const pb::SyntheticTask& t = study.task().synthetic();
  std::string path = "task.synthetic";
  int dims = 0;  // exact dimension, or 0 for "any, at least min_dims"
  int min_dims = 1;
  switch (t.function()) {
    case pb::SYNTHETIC_FUNCTION_BRANIN:
      dims = 2;
      break;
    case pb::SYNTHETIC_FUNCTION_HARTMANN6:
      dims = 6;
      break;
    case pb::SYNTHETIC_FUNCTION_ROSENBROCK:
      min_dims = 2;
      break;
    case pb::SYNTHETIC_FUNCTION_CURVE:
      break;
    default:
      c->Fail(path + ".function", "is required (branin, hartmann6, rosenbrock or curve)");
      return;
  }
  if (t.has_steps() && (t.steps() < 1 || t.steps() > 1000000))
    c->Fail(path + ".steps", "must be in [1, 1000000]");
  if (t.has_step_ms() && !(t.step_ms() >= 0 && t.step_ms() <= 3600000))
    c->Fail(path + ".step_ms", "must be in [0, 3600000]");
  if (t.has_noise() && !(t.noise() >= 0 && std::isfinite(t.noise())))
    c->Fail(path + ".noise", "must be >= 0");
  for (const char* f : {"fail_prob", "nan_prob", "crash_prob", "hang_prob"}) {
    const auto* fd = t.GetDescriptor()->FindFieldByName(f);
    if (!t.GetReflection()->HasField(t, fd)) continue;
    double v = t.GetReflection()->GetDouble(t, fd);
    if (!(v >= 0 && v <= 1))
      c->Fail(path + "." + f, "must be a probability in [0, 1], got " + Num(v));
  }
  // The task reads x1, x2, ...: they must exist unconditionally and be numeric.
  int n = 0;
  std::map<std::string, const pb::Parameter*> by_name;
  for (const auto& p : study.parameters()) by_name[p.name()] = &p;
  while (by_name.count("x" + std::to_string(n + 1))) ++n;
  std::string fname = t.GetDescriptor()
                          ->FindFieldByName("function")
                          ->enum_type()
                          ->FindValueByNumber(t.function())
                          ->name();
  if ((dims && n < dims) || n < min_dims) {
    int need = dims ? dims : min_dims;
    c->Fail(path + ".function", "this function needs parameters x1..x" + std::to_string(need) +
                                    ", the study defines x1..x" + std::to_string(n));
  }
  for (int i = 1; i <= n; ++i) {
    const pb::Parameter& p = *by_name["x" + std::to_string(i)];
    std::string pp = "parameters." + p.name();
    if (p.when_size() > 0) c->Fail(pp + ".when", "synthetic inputs x1..xn cannot be conditional");
    if (p.type() == pb::PARAM_TYPE_CATEGORICAL) {
      for (const auto& v : p.values()) {
        double d;
        if (!ValueAsDouble(v, &d) || v.kind_case() == pb::Value::kFlag) {
          c->Fail(pp + ".values", "synthetic inputs must be numbers, got " + ValueToString(v));
          break;
        }
      }
    }
  }
}

// The train task's knobs: type, allowed words or numeric range.
struct Knob {
  const char* name;
  char kind;  // i: int, f: float, b: bool, s: word
  double min, max;
  std::vector<std::string> words;
};

const std::vector<Knob>& TrainKnobs() {
  static const std::vector<Knob> kKnobs = {
      {"dataset", 's', 0, 0, {"fashion-mnist", "mnist"}},
      {"data_dir", 's', 0, 0, {}},
      {"model", 's', 0, 0, {"mlp", "cnn"}},
      {"epochs", 'i', 1, 10000, {}},
      {"batch_size", 'i', 1, 60000, {}},
      {"lr", 'f', 1e-12, 100, {}},
      {"optimizer", 's', 0, 0, {"sgd", "adam", "adamw"}},
      {"momentum", 'f', 0, 0.999999, {}},
      {"nesterov", 'b', 0, 0, {}},
      {"weight_decay", 'f', 0, 1, {}},
      {"lr_schedule", 's', 0, 0, {"constant", "step", "cosine"}},
      {"warmup_epochs", 'f', 0, 10000, {}},
      {"hidden_layers", 'i', 0, 64, {}},
      {"hidden_units", 'i', 1, 65536, {}},
      {"activation", 's', 0, 0, {"relu", "leaky_relu", "tanh", "gelu"}},
      {"dropout", 'f', 0, 0.99, {}},
      {"batch_norm", 'b', 0, 0, {}},
      {"conv_blocks", 'i', 0, 4, {}},
      {"channels", 'i', 1, 1024, {}},
      {"kernel_size", 'i', 1, 11, {}},
      {"pool", 's', 0, 0, {"max", "avg"}},
      {"dense_units", 'i', 0, 65536, {}},
      {"augment", 's', 0, 0, {"none", "flip", "crop", "flip+crop"}},
      {"validation", 'i', 0, 59999, {}},
      {"seed", 'i', 0, 1.8e19, {}},
      {"threads", 'i', 0, 1024, {}},
      {"init", 's', 0, 0, {"default", "he", "xavier"}},
  };
  return kKnobs;
}

// Checks one value (fixed or a categorical choice) against a knob.
std::string KnobValueError(const Knob& k, const pb::Value& v) {
  double d;
  switch (k.kind) {
    case 'b':
      return v.kind_case() == pb::Value::kFlag ? "" : "must be true or false";
    case 's': {
      if (v.kind_case() != pb::Value::kText) return "must be a word";
      if (k.words.empty() || std::find(k.words.begin(), k.words.end(), v.text()) != k.words.end())
        return "";
      std::string list;
      for (const auto& w : k.words) list += (list.empty() ? "" : ", ") + w;
      return "unknown value '" + v.text() + "' (expected one of: " + list + ")";
    }
    default:
      if (!ValueAsDouble(v, &d) || v.kind_case() == pb::Value::kFlag) return "must be a number";
      if (k.kind == 'i' && !IsInteger(d)) return "must be an integer";
      if (d < k.min || d > k.max) return "must be in [" + Num(k.min) + ", " + Num(k.max) + "]";
      return "";
  }
}

void CheckTrainTask(const pb::Study& study, Checker* c) {
  const pb::TrainTask& t = study.task().train();
  const auto* desc = t.GetDescriptor();
  const auto* refl = t.GetReflection();
  std::map<std::string, const Knob*> knobs;
  for (const auto& k : TrainKnobs()) knobs[k.name] = &k;
  for (const auto& k : TrainKnobs()) {
    const auto* f = desc->FindFieldByName(k.name);
    if (!f || !refl->HasField(t, f)) continue;
    pb::Value v;
    switch (f->cpp_type()) {
      case google::protobuf::FieldDescriptor::CPPTYPE_STRING:
        v.set_text(refl->GetString(t, f));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_BOOL:
        v.set_flag(refl->GetBool(t, f));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE:
        v.set_number(refl->GetDouble(t, f));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_INT32:
        v.set_integer(refl->GetInt32(t, f));
        break;
      default:
        v.set_integer(static_cast<int64_t>(refl->GetUInt64(t, f)));
        break;
    }
    std::string err = KnobValueError(k, v);
    if (!err.empty()) c->Fail(std::string("task.train.") + k.name, err);
  }
  if (t.has_kernel_size() && t.kernel_size() % 2 == 0)
    c->Fail("task.train.kernel_size", "must be odd (same padding)");
  for (const auto& p : study.parameters()) {
    std::string path = "parameters." + p.name();
    auto it = knobs.find(p.name());
    if (it == knobs.end()) {
      std::string list;
      for (const auto& k : TrainKnobs()) list += (list.empty() ? "" : ", ") + std::string(k.name);
      c->Fail(path, "'" + p.name() + "' is not a knob of the train task (knobs: " + list + ")");
      continue;
    }
    const auto* f = desc->FindFieldByName(p.name());
    if (f && refl->HasField(t, f)) {
      c->Fail(path, "'" + p.name() + "' is fixed in task.train and searched here; choose one");
    }
    const Knob& k = *it->second;
    if (p.type() == pb::PARAM_TYPE_CATEGORICAL) {
      for (int i = 0; i < p.values_size(); ++i) {
        std::string err = KnobValueError(k, p.values(i));
        if (!err.empty()) c->Fail(path + ".values[" + std::to_string(i) + "]", err);
      }
    } else if (p.type() == pb::PARAM_TYPE_CONSTANT) {
      std::string err = KnobValueError(k, p.value());
      if (!err.empty()) c->Fail(path + ".value", err);
    } else if (p.type() == pb::PARAM_TYPE_FLOAT || p.type() == pb::PARAM_TYPE_INT) {
      if (k.kind == 's' || k.kind == 'b') {
        c->Fail(path + ".type", "'" + p.name() + "' takes words or booleans: make it categorical");
      } else if (k.kind == 'i' && p.type() == pb::PARAM_TYPE_FLOAT) {
        c->Fail(path + ".type", "'" + p.name() + "' is an integer knob: use type int");
      } else if (p.has_min() && p.has_max() && (p.min() < k.min || p.max() > k.max)) {
        c->Fail(path,
                "'" + p.name() + "' must stay within [" + Num(k.min) + ", " + Num(k.max) + "]");
      }
    }
  }
}

}  // namespace

std::vector<std::string> TaskMetrics(const pb::Task& task) {
  if (task.has_synthetic()) return {"value"};
  if (task.has_train()) {
    return {"train_loss",    "val_loss",  "val_accuracy", "samples_per_s",
            "epoch_seconds", "test_loss", "test_accuracy"};
  }
  return {};
}

namespace {

// Resource bounds shared by hyperband and pbt: max must equal the task's
// steps (epochs), so that "completed" means fully trained.
void CheckMaxResource(const pb::Study& study, const char* path, bool has, int64_t value,
                      Checker* c) {
  int64_t resource = TaskResource(study.task());
  if (has && value != resource) {
    c->Fail(path, std::to_string(value) + " must equal the task's steps or epochs (" +
                      std::to_string(resource) + ")");
  }
}

void CheckHyperband(const pb::Study& study, Checker* c) {
  const pb::HyperbandConfig& h = study.algorithm().hyperband();
  int64_t resource = TaskResource(study.task());
  CheckMaxResource(study, "algorithm.hyperband.max_resource", h.has_max_resource(),
                   h.max_resource(), c);
  int64_t min_r = h.has_min_resource() ? h.min_resource() : 1;
  if (min_r < 1) c->Fail("algorithm.hyperband.min_resource", "must be >= 1");
  if (min_r >= resource) {
    c->Fail("algorithm.hyperband.min_resource", "min_resource (" + std::to_string(min_r) +
                                                    ") must be below the task's steps or epochs (" +
                                                    std::to_string(resource) + ")");
  }
  if (h.has_reduction_factor() && !(h.reduction_factor() > 1 && h.reduction_factor() <= 100))
    c->Fail("algorithm.hyperband.reduction_factor", "must be in (1, 100]");
}

void CheckPbt(const pb::Study& study, Checker* c) {
  const pb::PbtConfig& p = study.algorithm().pbt();
  int64_t resource = TaskResource(study.task());
  CheckMaxResource(study, "algorithm.pbt.max_steps", p.has_max_steps(), p.max_steps(), c);
  if (p.has_population() && (p.population() < 2 || p.population() > 10000))
    c->Fail("algorithm.pbt.population", "must be in [2, 10000]");
  int64_t interval = p.has_perturbation_interval() ? p.perturbation_interval() : 1;
  if (interval < 1 || interval >= resource) {
    c->Fail("algorithm.pbt.perturbation_interval",
            "must be >= 1 and below the task's steps or epochs (" + std::to_string(resource) + ")");
  }
  if (p.has_quantile() && !(p.quantile() > 0 && p.quantile() <= 0.5))
    c->Fail("algorithm.pbt.quantile", "must be in (0, 0.5]");
  if (p.has_resample_prob() && !(p.resample_prob() >= 0 && p.resample_prob() <= 1))
    c->Fail("algorithm.pbt.resample_prob", "must be in [0, 1]");
  int64_t population = p.has_population() ? p.population() : 8;
  if (study.algorithm().has_budget() && study.algorithm().budget() < population * resource) {
    c->Fail("algorithm.budget", "budget " + std::to_string(study.algorithm().budget()) +
                                    " is below population x max_steps (" +
                                    std::to_string(population * resource) + ")");
  }
  if (study.algorithm().has_max_trials() && study.algorithm().max_trials() < population) {
    c->Fail("algorithm.max_trials", "must be at least the population (" +
                                        std::to_string(population) + "); children count too");
  }
}

}  // namespace

Status ValidateStudy(ParsedStudy* parsed) {
  pb::Study& study = parsed->study;
  Checker c(parsed->source);
  if (study.name().empty()) {
    // Default: the file's base name without extension.
    std::string base = parsed->source.file();
    size_t slash = base.rfind('/');
    if (slash != std::string::npos) base = base.substr(slash + 1);
    size_t dot = base.find('.');
    if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
    study.set_name(base);
  }
  if (study.name().size() > 200) c.Fail("name", "must be at most 200 characters");

  if (!study.has_objective()) {
    c.Fail("objective", "is required, e.g. objective: {metric: value, goal: minimize}");
  } else {
    if (study.objective().metric().empty()) c.Fail("objective.metric", "is required");
    if (study.objective().goal() == pb::GOAL_UNSPECIFIED)
      c.Fail("objective.goal", "is required (minimize or maximize)");
  }

  if (study.task().kind_case() == pb::Task::KIND_NOT_SET) {
    c.Fail(
        "task",
        "is required, e.g. task: {synthetic: {function: branin}} or task: {train: {model: mlp}}");
  } else {
    if (study.task().has_synthetic()) CheckSyntheticTask(study, &c);
    if (study.task().has_train()) CheckTrainTask(study, &c);
    auto metrics = TaskMetrics(study.task());
    const std::string& m = study.objective().metric();
    if (!m.empty() && !metrics.empty() &&
        std::find(metrics.begin(), metrics.end(), m) == metrics.end()) {
      std::string list;
      for (const auto& x : metrics) list += (list.empty() ? "" : ", ") + x;
      c.Fail("objective.metric",
             "'" + m + "' is not reported by this task (it reports: " + list + ")");
    }
  }
  if (study.task().has_stall_timeout_s() &&
      !(study.task().stall_timeout_s() >= 0 && std::isfinite(study.task().stall_timeout_s()))) {
    c.Fail("task.stall_timeout_s", "must be >= 0 seconds");
  }

  const pb::Algorithm& alg = study.algorithm();
  if (alg.type() == pb::ALGORITHM_TYPE_UNSPECIFIED) {
    c.Fail("algorithm.type",
           "is required (random, grid, quasirandom, asha, median, hyperband or pbt)");
  }
  bool stopping = alg.type() == pb::ALGORITHM_TYPE_ASHA || alg.type() == pb::ALGORITHM_TYPE_MEDIAN;
  if (stopping && !alg.has_max_trials())
    c.Fail("algorithm.max_trials", "is required for asha and median");
  if (alg.has_budget() && alg.budget() < 1)
    c.Fail("algorithm.budget", "must be >= 1 (steps summed over trials)");
  if (alg.has_asha() && alg.type() != pb::ALGORITHM_TYPE_ASHA)
    c.Fail("algorithm.asha", "is only for type: asha");
  if (alg.has_median() && alg.type() != pb::ALGORITHM_TYPE_MEDIAN)
    c.Fail("algorithm.median", "is only for type: median");
  if (alg.has_hyperband() && alg.type() != pb::ALGORITHM_TYPE_HYPERBAND)
    c.Fail("algorithm.hyperband", "is only for type: hyperband");
  if (alg.has_pbt() && alg.type() != pb::ALGORITHM_TYPE_PBT)
    c.Fail("algorithm.pbt", "is only for type: pbt");
  if (alg.type() == pb::ALGORITHM_TYPE_HYPERBAND) CheckHyperband(study, &c);
  if (alg.type() == pb::ALGORITHM_TYPE_PBT) CheckPbt(study, &c);
  if (alg.type() == pb::ALGORITHM_TYPE_ASHA) {
    const pb::AshaConfig& a = alg.asha();
    int64_t resource = TaskResource(study.task());
    int64_t min_r = a.has_min_resource() ? a.min_resource() : 1;
    if (min_r < 1) c.Fail("algorithm.asha.min_resource", "must be >= 1");
    if (a.has_max_resource() && a.max_resource() != resource) {
      c.Fail("algorithm.asha.max_resource", "max_resource (" + std::to_string(a.max_resource()) +
                                                ") must equal the task's steps or epochs (" +
                                                std::to_string(resource) + ")");
    }
    if (min_r >= resource) {
      c.Fail("algorithm.asha.min_resource", "min_resource (" + std::to_string(min_r) +
                                                ") must be below the task's steps or epochs (" +
                                                std::to_string(resource) + ")");
    }
    if (a.has_reduction_factor() && !(a.reduction_factor() > 1 && a.reduction_factor() <= 100)) {
      c.Fail("algorithm.asha.reduction_factor", "must be in (1, 100]");
    }
    if (a.has_grace_period() && a.grace_period() < 1)
      c.Fail("algorithm.asha.grace_period", "must be >= 1");
  }
  if (alg.type() == pb::ALGORITHM_TYPE_MEDIAN) {
    if (alg.median().has_grace_period() && alg.median().grace_period() < 1) {
      c.Fail("algorithm.median.grace_period", "must be >= 1");
    }
    if (alg.median().has_min_trials() && alg.median().min_trials() < 1) {
      c.Fail("algorithm.median.min_trials", "must be >= 1");
    }
  }
  if (alg.has_max_trials() && (alg.max_trials() < 1 || alg.max_trials() > kMaxTrials)) {
    c.Fail("algorithm.max_trials", "must be in [1, " + std::to_string(kMaxTrials) + "]");
  }
  if ((alg.type() == pb::ALGORITHM_TYPE_RANDOM || alg.type() == pb::ALGORITHM_TYPE_QUASIRANDOM) &&
      !alg.has_max_trials()) {
    c.Fail("algorithm.max_trials",
           "is required for " +
               std::string(alg.type() == pb::ALGORITHM_TYPE_RANDOM ? "random" : "quasirandom") +
               " search");
  }
  if (alg.has_max_concurrent() && alg.max_concurrent() < 1)
    c.Fail("algorithm.max_concurrent", "must be >= 1");
  if (alg.has_max_retries() && (alg.max_retries() < 0 || alg.max_retries() > 100)) {
    c.Fail("algorithm.max_retries", "must be in [0, 100]");
  }

  if (study.resources().has_gpus_per_trial()) {
    int g = study.resources().gpus_per_trial();
    if (g < 1 || g > 64) c.Fail("resources.gpus_per_trial", "must be in [1, 64]");
    if (!study.task().has_train()) c.Fail("resources.gpus_per_trial", "only train tasks use GPUs");
  }
  CheckParameters(study, &c);
  if (!c.ok()) return c.status();

  if (alg.type() == pb::ALGORITHM_TYPE_GRID) {
    for (const auto& p : study.parameters()) {
      if (p.type() == pb::PARAM_TYPE_FLOAT && !p.has_step()) {
        c.Fail("parameters." + p.name(), "grid search needs a step for float parameter '" +
                                             p.name() + "' (or make it categorical)");
      }
    }
    if (!c.ok()) return c.status();
    auto space = SearchSpace::Create(study);
    if (!space.ok())
      return Status::Error(parsed->source.Where("parameters") + space.status().message());
    auto size = space->GridSize(kMaxGridPoints);
    if (!size.ok())
      c.Fail("parameters", size.status().message() + "; narrow the space or use random search");
  }
  return c.status();
}

}  // namespace sweep
