// The model-family space (model_families.h): one table of the knobs each
// family searches, and the expansion of `model: auto` on a table.
#include "search_spaces/model_families.h"

#include <string>

#include "common/train_knobs.h"

namespace sweep {

namespace {

enum Family { kTree = 1, kMlp = 2, kLinear = 4 };

struct Knob {
  const char* name;
  int families;  // which `model` values draw it
  pb::ParamType type;
  double min = 0, max = 0;
  bool log = false;
  std::vector<int64_t> choices;  // categorical (integers)
  const char* word = nullptr;    // constant (a word)
};

Knob Range(const char* name, int families, pb::ParamType type, double min, double max,
           bool log = false) {
  return Knob{name, families, type, min, max, log, {}, nullptr};
}

// Trees: XGBoost's defaults sit inside every range (rounds 100, eta 0.3,
// max_depth 6, min_child_weight 1, no sampling, lambda 1), as FLAML's
// ranges hold LightGBM's. Networks: Adam, whose step size matters less than
// SGD's over tables of different scales; a linear model is an mlp with no
// hidden layer, so it shares the optimizer's knobs and none of the layers'.
const std::vector<Knob>& Knobs() {
  using P = pb::ParamType;
  constexpr P kInt = P::PARAM_TYPE_INT, kFloat = P::PARAM_TYPE_FLOAT;
  constexpr bool kLog = true;
  static const std::vector<Knob> kKnobs = {
      Range("rounds", kTree, kInt, 16, 512, kLog),
      Range("eta", kTree, kFloat, 0.01, 0.5, kLog),
      Range("max_depth", kTree, kInt, 2, 10),
      Range("min_child_weight", kTree, kFloat, 0.01, 32, kLog),
      Range("subsample", kTree, kFloat, 0.5, 1),
      Range("colsample_bytree", kTree, kFloat, 0.5, 1),
      Range("reg_lambda", kTree, kFloat, 0.01, 32, kLog),
      Knob{"optimizer", kMlp | kLinear, P::PARAM_TYPE_CONSTANT, 0, 0, false, {}, "adam"},
      Range("lr", kMlp | kLinear, kFloat, 1e-4, 0.03, kLog),
      Knob{"batch_size",
           kMlp | kLinear,
           P::PARAM_TYPE_CATEGORICAL,
           0,
           0,
           false,
           {16, 32, 64, 128},
           nullptr},
      Range("weight_decay", kMlp | kLinear, kFloat, 1e-6, 0.01, kLog),
      Range("hidden_layers", kMlp, kInt, 1, 3),
      Range("hidden_units", kMlp, kInt, 16, 512, kLog),
      Range("dropout", kMlp, kFloat, 0, 0.5),
  };
  return kKnobs;
}

pb::Value Text(const char* s) {
  pb::Value v;
  v.set_text(s);
  return v;
}

bool Searched(const pb::Study& study, const std::string& name) {
  for (const auto& p : study.parameters())
    if (p.name() == name) return true;
  return false;
}

}  // namespace

bool SearchesFamilies(pb::AlgorithmType type) {
  return type != pb::ALGORITHM_TYPE_GRID && type != pb::ALGORITHM_TYPE_GP &&
         type != pb::ALGORITHM_TYPE_PBT;
}

std::vector<pb::Parameter> ModelFamilySpace(const pb::Study& study, int max_batch) {
  const pb::TrainTask& t = study.task().train();
  std::vector<pb::Parameter> out;
  pb::Parameter model;
  model.set_name("model");
  model.set_type(pb::PARAM_TYPE_CATEGORICAL);
  for (const char* m : {"gbdt", "mlp", "linear"}) *model.add_values() = Text(m);
  out.push_back(model);
  for (const Knob& k : Knobs()) {
    const TrainKnob* knob = FindTrainKnob(k.name);
    if (knob && FixedTrainKnob(t, *knob)) continue;
    if (Searched(study, k.name)) continue;
    pb::Parameter p;
    p.set_name(k.name);
    p.set_type(k.type);
    if (k.type == pb::PARAM_TYPE_INT || k.type == pb::PARAM_TYPE_FLOAT) {
      p.set_min(k.min);
      p.set_max(k.max);
      p.set_log(k.log);
      if (k.type == pb::PARAM_TYPE_INT) p.set_step(1);
    }
    // Batches the training rows can fill (a larger one fails its trial).
    for (int64_t c : k.choices)
      if (max_batch <= 0 || c <= max_batch) p.add_values()->set_integer(c);
    if (!k.choices.empty() && p.values_size() == 0) p.add_values()->set_integer(max_batch);
    if (k.word) *p.mutable_value() = Text(k.word);
    pb::Condition* when = p.add_when();
    when->set_parent("model");
    if (k.families & kTree) *when->add_values() = Text("gbdt");
    if (k.families & kMlp) *when->add_values() = Text("mlp");
    if (k.families & kLinear) *when->add_values() = Text("linear");
    out.push_back(std::move(p));
  }
  return out;
}

bool ExpandAutoModel(pb::Study* study) {
  if (!study->task().has_train()) return false;
  pb::TrainTask* t = study->mutable_task()->mutable_train();
  if (t->model() != "auto" || !t->data().has_csv() || Searched(*study, "model")) return false;
  if (!SearchesFamilies(study->algorithm().type())) return false;  // validation says why
  t->clear_model();
  for (pb::Parameter& p : ModelFamilySpace(*study)) *study->add_parameters() = std::move(p);
  return true;
}

}  // namespace sweep
