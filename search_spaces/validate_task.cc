// Study validation of the task: synthetic functions and their inputs, the
// train task's knobs (common/train_knobs.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/command_template.h"
#include "common/nearest_word.h"
#include "common/task_schema.h"
#include "common/train_knobs.h"
#include "common/values.h"
#include "search_spaces/model_families.h"
#include "search_spaces/validate_internal.h"

namespace sweep::validate_internal {

namespace {

void CheckSyntheticTask(const pb::Study& study, Checker* c) {
  const pb::SyntheticTask& t = study.task().synthetic();
  std::string path = "task.synthetic";
  const SyntheticFunctionInfo* fn = FindSyntheticFunction(t.function());
  if (!fn) {
    c->Fail(
        path + ".function",
        "is required (branin, hartmann6, rosenbrock, ackley, levy, curve, zdt1, zdt2 or dtlz2)");
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
  if (n < fn->inputs) {
    // Name what is missing and what the study has: "needs x1 and x2; the
    // study has no x2 (it defines x1, lr)".
    std::string want, missing, have;
    for (int i = 1; i <= fn->inputs; ++i) {
      std::string x = "x" + std::to_string(i);
      want += (i == 1 ? "" : i == fn->inputs ? " and " : ", ") + x;
      if (!by_name.count(x)) missing += (missing.empty() ? "" : ", ") + x;
    }
    for (const auto& p : study.parameters()) have += (have.empty() ? "" : ", ") + p.name();
    c->Fail(path + ".function", "'" + std::string(fn->name) + "' needs " +
                                    std::to_string(fn->inputs) + " numeric parameter" +
                                    (fn->inputs == 1 ? "" : "s") + " named " + want +
                                    "; the study has no " + missing + " (it defines " +
                                    (have.empty() ? "no parameters" : have) + ")");
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
    // The functions of several objectives are defined on [0, 1].
    if (fn->objectives > 1 &&
        (p.type() == pb::PARAM_TYPE_FLOAT || p.type() == pb::PARAM_TYPE_INT) &&
        (p.min() < 0 || p.max() > 1))
      c->Fail(pp, "'" + std::string(fn->name) + "' is defined for inputs in [0, 1]");
  }
}

// The `model` words a trial may take, as bits: a network with hidden layers
// (mlp, cnn, auto), trees (gbdt), and a linear model, a network without.
constexpr int kLayered = 1, kTreeWord = 2, kLinearWord = 4;
int WordBit(const std::string& model) {
  return model == "gbdt" ? kTreeWord : model == "linear" ? kLinearWord : kLayered;
}
// The knob families (kNetworks, kTrees) those words train.
int FamiliesOf(int words) {
  return ((words & (kLayered | kLinearWord)) ? kNetworks : 0) | ((words & kTreeWord) ? kTrees : 0);
}

// The words a study's trials may take: its fixed `model`, or the words a
// searched one takes.
int StudyWords(const pb::Study& study) {
  const pb::TrainTask& t = study.task().train();
  for (const auto& p : study.parameters()) {
    if (p.name() != "model") continue;
    int words = 0;
    if (p.type() == pb::PARAM_TYPE_CONSTANT) words |= WordBit(p.value().text());
    for (const auto& v : p.values()) words |= WordBit(v.text());
    return words ? words : kLayered | kTreeWord | kLinearWord;
  }
  return WordBit(t.has_model() ? t.model() : "mlp");
}

int StudyModels(const pb::Study& study) { return FamiliesOf(StudyWords(study)); }

// The words a trial that draws `p` may take: those a `when` on `model`
// allows, on `p` or on the parameters it hangs from, within the study's.
// `done` keeps each parameter's answer (a walk of every path could take
// exponential time); a cycle, which the parameter checks report, ends the
// walk where it closes.
int DrawnWithWords(const pb::Study& study, const pb::Parameter& p,
                   std::map<std::string, int>* done) {
  if (auto it = done->find(p.name()); it != done->end()) return it->second;
  int words = StudyWords(study);
  (*done)[p.name()] = words;  // while on the path: a cycle reads the study's
  for (const auto& c : p.when()) {
    if (c.parent() == "model") {
      int allowed = 0;
      for (const auto& v : c.values()) allowed |= WordBit(v.text());
      words &= allowed;
      continue;
    }
    for (const auto& q : study.parameters())
      if (q.name() == c.parent()) words &= DrawnWithWords(study, q, done);
  }
  (*done)[p.name()] = words;
  return words;
}

int DrawnWithWords(const pb::Study& study, const pb::Parameter& p) {
  std::map<std::string, int> done;
  return DrawnWithWords(study, p, &done);
}

// The knobs of a network's hidden layers, which a linear model has none of.
bool LayerKnob(const std::string& name) {
  return name == "hidden_layers" || name == "hidden_units" || name == "hidden_shape" ||
         name == "activation" || name == "dropout" || name == "batch_norm";
}

void CheckTrainData(const pb::Study& study, Checker* c) {
  const pb::TrainTask& t = study.task().train();
  if (t.has_problem() && t.problem() != "classification" && t.problem() != "regression") {
    c->Fail("task.train.problem", "unknown value '" + t.problem() + "'" +
                                      DidYouMean(t.problem(), {"classification", "regression"}) +
                                      " (expected one of: classification, regression)");
  }
  if (t.problem() == "regression" && !t.has_data()) {
    c->Fail("task.train.problem",
            "regression needs your own data (task.train.data: csv or npy); fashion-mnist and "
            "mnist have classes");
  }
  if (!t.has_data()) return;
  const pb::TrainData& d = t.data();
  const std::string path = "task.train.data";
  for (const char* f : {"dataset", "data_dir"}) {
    if (t.GetReflection()->HasField(t, t.GetDescriptor()->FindFieldByName(f))) {
      c->Fail(std::string("task.train.") + f,
              "chooses an IDX data set, and this study reads its own (task.train.data): set one");
    }
  }
  if (d.has_test_fraction() && !(d.test_fraction() > 0 && d.test_fraction() <= 0.9))
    c->Fail(path + ".test_fraction", "must be in (0, 0.9]");
  if (d.has_csv()) {
    const pb::CsvData& v = d.csv();
    const std::string p = path + ".csv";
    if (v.train().empty()) c->Fail(p + ".train", "is required: the training table's file");
    if (v.label().empty() && v.train_labels().empty())
      c->Fail(p + ".label", "is required: the name of the column to predict");
    if (v.has_test_labels() && !v.has_test())
      c->Fail(p + ".test_labels", "needs test, the file whose rows they label");
    if (v.has_train_labels() && v.has_test() && !v.has_test_labels())
      c->Fail(p + ".test_labels", "is required: train's labels are in a file of their own");
    if (v.has_missing() && v.missing() != "error" && v.missing() != "mean" &&
        v.missing() != "native")
      c->Fail(p + ".missing", "unknown value '" + v.missing() + "'" +
                                  DidYouMean(v.missing(), {"error", "mean", "native"}) +
                                  " (expected one of: error, mean, native)");
    if (v.missing() == "native" && (StudyModels(study) & kNetworks))
      c->Fail(p + ".missing",
              "native leaves a missing number missing, which only trees take (model: gbdt); a "
              "network needs missing: mean");
    const std::string& del = v.delimiter();
    // A tab is "\t" in a YAML double-quoted string, or the two characters \t.
    if (v.has_delimiter() && del != "," && del != ";" && del != "|" && del != " " && del != "\t" &&
        del != "\\t")
      c->Fail(p + ".delimiter",
              "must be \",\", \";\", \"|\", \"\\t\" (a tab) or \" \" (runs of spaces and tabs)");
    if (v.skip_rows() < 0 || v.skip_rows() > 1000000)
      c->Fail(p + ".skip_rows", "must be in [0, 1000000]");
    const std::string& model = t.model();
    if (model == "auto" && !SearchesFamilies(study.algorithm().type()))
      c->Fail("task.train.model",
              "auto on a table searches the model families (gbdt, mlp, linear), a conditional "
              "space that grid, gp and pbt do not search: use tpe, auto, random, quasirandom, "
              "asha, median, hyperband or bohb, or name the model (mlp, linear or gbdt)");
    if (model == "cnn")
      c->Fail("task.train.model", "cnn needs images; a csv table has none: use mlp or gbdt");
    if (t.has_augment() && t.augment() != "none")
      c->Fail("task.train.augment", "needs images; a csv table has none");
  } else if (d.has_npy()) {
    const pb::NpyData& v = d.npy();
    const std::string p = path + ".npy";
    if (v.train_x().empty()) c->Fail(p + ".train_x", "is required: the training examples' file");
    if (v.train_y().empty()) c->Fail(p + ".train_y", "is required: the training labels' file");
    if (v.has_test_x() != v.has_test_y())
      c->Fail(p + (v.has_test_x() ? ".test_y" : ".test_x"), "test_x and test_y go together");
  } else {
    c->Fail(path,
            "needs a source: csv: {train: FILE, label: COLUMN} or npy: {train_x: FILE, "
            "train_y: FILE}");
  }
}

// "'eta' shapes gbdt trees, and this study trains networks (model: mlp)".
std::string KnobOfOtherModel(const TrainKnob& k, const pb::TrainTask& t) {
  return "'" + std::string(k.name) + "' shapes " +
         (k.models == kTrees ? "gbdt trees" : "networks (mlp, linear, cnn)") +
         ", and this study's " +
         (k.models == kTrees ? "model is " + (t.has_model() ? t.model() : "mlp (the default)")
                             : "model is gbdt") +
         ": remove it" + (k.models == kTrees ? " or set model: gbdt" : "");
}

void CheckTrainTask(const pb::Study& study, Checker* c) {
  const pb::TrainTask& t = study.task().train();
  const int models = StudyModels(study);
  if ((models & kTrees) && !t.has_data())
    c->Fail("task.train.model",
            "gbdt trains on tables: set task.train.data (a csv or npy table), or use mlp or cnn "
            "for " +
                (t.has_dataset() ? t.dataset() : std::string("fashion-mnist")));
  for (const auto& k : TrainKnobs()) {
    auto v = FixedTrainKnob(t, k);
    if (!v) continue;
    std::string err = TrainKnobValueError(k, *v);
    if (!err.empty()) c->Fail("task.train." + std::string(k.name), err);
    if ((k.models & models) == 0)
      c->Fail("task.train." + std::string(k.name), KnobOfOtherModel(k, t));
    if (StudyWords(study) == kLinearWord && LayerKnob(std::string(k.name)))
      c->Fail("task.train." + std::string(k.name),
              "shapes a network's hidden layers, and a linear model (model: linear) has none: "
              "remove it or use model: mlp");
  }
  if (t.has_kernel_size() && t.kernel_size() % 2 == 0)
    c->Fail("task.train.kernel_size", "must be odd (same padding)");
  bool validation_searched = false;
  for (const auto& p : study.parameters()) validation_searched |= p.name() == "validation";
  if (t.folds() >= 2 && (t.has_validation() || validation_searched))
    c->Fail("task.train.folds",
            "set folds or validation, not both: cross-validation holds out each fold in turn, "
            "and the model kept trains on every row");
  CheckTrainData(study, c);
  for (const auto& p : study.parameters()) {
    std::string path = "parameters." + p.name();
    if (p.name() == "problem") {
      c->Fail(path,
              "'problem' says what the data's label is, and chooses the metrics: set it in "
              "task.train, not as a parameter");
      continue;
    }
    if (t.has_data() && (p.name() == "dataset" || p.name() == "data_dir")) {
      c->Fail(path, "'" + p.name() +
                        "' chooses an IDX data set, and this study reads its own "
                        "(task.train.data)");
      continue;
    }
    const TrainKnob* knob = FindTrainKnob(p.name());
    if (!knob) {
      std::vector<std::string> knobs;
      for (const auto& k : TrainKnobs()) knobs.emplace_back(k.name);
      c->Fail(path, "'" + p.name() + "' is not a knob of the train task" +
                        DidYouMean(p.name(), knobs) + " (knobs: " + TrainKnobNameList() + ")");
      continue;
    }
    if (!knob->not_searched.empty()) {
      c->Fail(path, "'" + p.name() +
                        "' is set in task.train, not searched: " + std::string(knob->not_searched));
      continue;
    }
    if (FixedTrainKnob(t, *knob)) {
      c->Fail(path, "'" + p.name() + "' is fixed in task.train and searched here; choose one");
    }
    const TrainKnob& k = *knob;
    if ((k.models & models) == 0) {
      c->Fail(path, KnobOfOtherModel(k, t));
    } else if (const int words = DrawnWithWords(study, p); FamiliesOf(words) & ~k.models) {
      // `model` is searched: a knob of one family is drawn only for it, so
      // that the search never tunes what a trial ignores.
      const bool trees = k.models == kTrees;
      c->Fail(path + ".when", "'" + p.name() + "' shapes " +
                                  (trees ? "gbdt trees" : "networks (mlp, linear, cnn)") +
                                  " only, and model is searched: add when: {model: " +
                                  (trees ? "gbdt" : "[mlp, linear]") +
                                  "} (or a parent with such a condition)");
    } else if ((words & kLinearWord) && LayerKnob(p.name())) {
      c->Fail(path + (words == kLinearWord ? "" : ".when"),
              "shapes a network's hidden layers, and a linear model (model: linear) has none: " +
                  std::string(words == kLinearWord ? "remove it or use model: mlp"
                                                   : "add when: {model: mlp}"));
    }
    if (p.type() == pb::PARAM_TYPE_CATEGORICAL) {
      for (int i = 0; i < p.values_size(); ++i) {
        std::string err = TrainKnobValueError(k, p.values(i));
        if (!err.empty()) c->Fail(path + ".values[" + std::to_string(i) + "]", err);
      }
    } else if (p.type() == pb::PARAM_TYPE_CONSTANT) {
      std::string err = TrainKnobValueError(k, p.value());
      if (!err.empty()) c->Fail(path + ".value", err);
    } else if (p.type() == pb::PARAM_TYPE_FLOAT || p.type() == pb::PARAM_TYPE_INT) {
      if (k.type == KnobType::kWord || k.type == KnobType::kBool) {
        c->Fail(path + ".type", "'" + p.name() + "' takes words or booleans: make it categorical");
      } else if (k.type == KnobType::kInt && p.type() == pb::PARAM_TYPE_FLOAT) {
        c->Fail(path + ".type", "'" + p.name() + "' is an integer knob: use type int");
      } else if (p.has_min() && p.has_max() && (p.min() < k.min || p.max() > k.max)) {
        c->Fail(path,
                "'" + p.name() + "' must stay within [" + Num(k.min) + ", " + Num(k.max) + "]");
      }
    }
  }
}

bool EnvName(const std::string& k) {
  if (k.empty() || (k[0] >= '0' && k[0] <= '9')) return false;
  for (char ch : k)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_'))
      return false;
  return true;
}

void CheckCommandTask(const pb::Study& study, Checker* c) {
  const pb::CommandTask& t = study.task().command();
  std::set<std::string> params;
  std::vector<std::string> param_list;
  for (const auto& p : study.parameters()) {
    params.insert(p.name());
    param_list.push_back(p.name());
  }
  auto check_template = [&](const std::string& path, const std::string& text) {
    auto names = TemplateNames(text);
    if (!names.ok()) {
      c->Fail(path, names.status().message());
      return;
    }
    for (const auto& n : *names) {
      if (params.count(n)) continue;
      std::string theirs = param_list.empty() ? "; the study has no parameters"
                                              : "; its parameters are " + JoinWords(param_list);
      auto near = NearestWord(n, param_list);
      c->Fail(path, "'{" + n + "}' is not a parameter of the study" +
                        (near ? " (did you mean '" + *near + "'?)" : "") + theirs +
                        " (write '{{' for a literal brace)");
    }
  };
  if (t.argv_size() == 0 || t.argv(0).empty())
    c->Fail("task.command.argv",
            "is required: the program and its arguments, e.g. [python3, train.py, --lr, \"{lr}\"]");
  if (t.argv_size() > 4096) c->Fail("task.command.argv", "has more than 4096 arguments");
  for (int i = 0; i < t.argv_size(); ++i) {
    std::string path = "task.command.argv[" + std::to_string(i) + "]";
    if (t.argv(i).find('\0') != std::string::npos) c->Fail(path, "contains a NUL byte");
    check_template(path, t.argv(i));
  }
  if (t.env_size() > 4096) c->Fail("task.command.env", "has more than 4096 variables");
  for (const auto& [k, v] : t.env()) {
    std::string path = "task.command.env." + k;
    if (!EnvName(k))
      c->Fail(path, "is not a variable name (letters, digits and _, not starting with a digit)");
    else if (k.rfind("SWEEP_", 0) == 0)
      c->Fail(path, "SWEEP_* variables are set by the runner (docs/command.md)");
    if (v.find('\0') != std::string::npos) c->Fail(path, "contains a NUL byte");
    check_template(path, v);
  }
  if (t.has_steps() && (t.steps() < 1 || t.steps() > 1000000))
    c->Fail("task.command.steps", "must be in [1, 1000000]");
  if (t.has_timeout_s() && !(t.timeout_s() >= 0 && t.timeout_s() <= 1e7))
    c->Fail("task.command.timeout_s", "must be in [0, 10000000] seconds (0: no timeout)");
  if (t.has_grace_s() && !(t.grace_s() >= 0 && t.grace_s() <= 3600))
    c->Fail("task.command.grace_s", "must be in [0, 3600] seconds");
  if (study.algorithm().type() == pb::ALGORITHM_TYPE_PBT && !t.checkpoints())
    c->Fail("task.command.checkpoints",
            "PBT needs checkpoints: a child continues from its parent's; write checkpoint folders "
            "(docs/command.md) and set checkpoints: true");
}

}  // namespace

void CheckTask(const pb::Study& study, Checker* c) {
  if (study.task().kind_case() == pb::Task::KIND_NOT_SET) {
    c->Fail(
        "task",
        "is required, e.g. task: {synthetic: {function: branin}}, task: {train: {model: mlp}} or "
        "task: {command: {argv: [python3, train.py]}}");
  } else {
    if (study.task().has_synthetic()) CheckSyntheticTask(study, c);
    if (study.task().has_train()) CheckTrainTask(study, c);
    if (study.task().has_command()) CheckCommandTask(study, c);
  }
  if (study.task().has_stall_timeout_s() &&
      !(study.task().stall_timeout_s() >= 0 && std::isfinite(study.task().stall_timeout_s()))) {
    c->Fail("task.stall_timeout_s", "must be >= 0 seconds");
  }
}

}  // namespace sweep::validate_internal
