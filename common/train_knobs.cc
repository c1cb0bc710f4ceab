// The train task's knob table and the checks every reader shares.
#include "common/train_knobs.h"

#include <algorithm>
#include <cmath>

#include "common/json.h"
#include "common/nearest_word.h"
#include "common/values.h"

namespace sweep {

namespace {

using K = KnobType;

TrainKnob Word(std::string_view name, std::vector<std::string_view> words, std::string_view def,
               bool inherited = false) {
  return {name, K::kWord, 0, 0, std::move(words), 0, def, inherited, {}};
}

TrainKnob Number(std::string_view name, KnobType type, double min, double max, double def,
                 bool inherited = false) {
  return {name, type, min, max, {}, def, {}, inherited, {}};
}

TrainKnob Flag(std::string_view name, bool def, bool inherited = false) {
  return {name, K::kBool, 0, 0, {}, def ? 1.0 : 0.0, {}, inherited, {}};
}

TrainKnob Note(TrainKnob k, std::string_view note) {
  k.default_note = note;
  return k;
}

TrainKnob NotSearched(TrainKnob k, std::string_view why) {
  k.not_searched = why;
  return k;
}

TrainKnob Of(int models, TrainKnob k) {
  k.models = models;
  return k;
}

constexpr bool kInherited = true;

bool IsInteger(double v) { return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15; }

}  // namespace

const std::vector<TrainKnob>& TrainKnobs() {
  static const std::vector<TrainKnob> kKnobs = {
      Word("dataset", {"fashion-mnist", "mnist"}, "fashion-mnist", kInherited),
      Note(Word("data_dir", {}, "", kInherited), "the dataset's standard directory"),
      Word("model", {"mlp", "cnn", "auto", "gbdt", "linear"}, "mlp", kInherited),
      Number("epochs", K::kInt, 1, 10000, 10),
      Of(kNetworks, Number("batch_size", K::kInt, 1, 60000, 128)),
      Of(kNetworks, Number("lr", K::kFloat, 1e-12, 100, 0.05)),
      Of(kNetworks, Word("optimizer", {"sgd", "adam", "adamw"}, "sgd", kInherited)),
      Of(kNetworks, Note(Number("momentum", K::kFloat, 0, 0.999999, 0.9),
                         "0.9 for sgd, 0 for adam and adamw")),
      Of(kNetworks, Flag("nesterov", false)),
      Of(kNetworks, Number("weight_decay", K::kFloat, 0, 1, 0)),
      Of(kNetworks, Word("lr_schedule", {"constant", "step", "cosine"}, "cosine")),
      Of(kNetworks, Number("warmup_epochs", K::kFloat, 0, 10000, 0)),
      Of(kNetworks, Number("hidden_layers", K::kInt, 0, 64, 2, kInherited)),
      Of(kNetworks, Number("hidden_units", K::kInt, 1, 65536, 256, kInherited)),
      Of(kNetworks, Word("hidden_shape", {"constant", "funnel"}, "constant", kInherited)),
      Of(kNetworks, Word("activation", {"relu", "leaky_relu", "tanh", "gelu"}, "relu", kInherited)),
      Of(kNetworks, Number("dropout", K::kFloat, 0, 0.99, 0)),
      Of(kNetworks, Flag("batch_norm", false, kInherited)),
      Of(kNetworks, Number("conv_blocks", K::kInt, 0, 4, 2, kInherited)),
      Of(kNetworks, Number("channels", K::kInt, 1, 1024, 32, kInherited)),
      Of(kNetworks, Number("kernel_size", K::kInt, 1, 11, 3, kInherited)),
      Of(kNetworks, Word("pool", {"max", "avg"}, "max", kInherited)),
      Of(kNetworks, Number("dense_units", K::kInt, 0, 65536, 128, kInherited)),
      Of(kNetworks, Word("augment",
                         {"none", "flip", "crop", "flip+crop", "erase", "flip+erase", "crop+erase",
                          "flip+crop+erase"},
                         "none")),
      Note(Number("validation", K::kInt, 0, 100000000, 5000, kInherited),
           "5000 for fashion-mnist and mnist; a fifth of the training rows for csv and npy data"),
      NotSearched(Note(Number("folds", K::kInt, 0, 20, 0, kInherited),
                       "0 or 1: one validation split; K: K-fold cross-validation"),
                  "it says how every trial is measured (a cross-validated val_* and one "
                  "split's are not the same measure)"),
      Note(Number("seed", K::kInt, 0, 1.8e19, 0, kInherited), "the trial's seed"),
      Note(Number("threads", K::kInt, 0, 1024, 0), "0: cores / local runners"),
      Of(kNetworks, Word("init", {"default", "he", "xavier"}, "default")),
      Of(kTrees, Number("rounds", K::kInt, 1, 100000, 100)),
      Of(kTrees, Number("eta", K::kFloat, 1e-6, 1, 0.3)),
      Of(kTrees, Number("max_depth", K::kInt, 1, 32, 6)),
      Of(kTrees, Number("max_leaves", K::kInt, 0, 1 << 20, 0)),
      Of(kTrees, Number("min_child_weight", K::kFloat, 0, 1e6, 1)),
      Of(kTrees, Number("subsample", K::kFloat, 0.01, 1, 1)),
      Of(kTrees, Number("colsample_bytree", K::kFloat, 0.01, 1, 1)),
      Of(kTrees, Number("reg_alpha", K::kFloat, 0, 1e6, 0)),
      Of(kTrees, Number("reg_lambda", K::kFloat, 0, 1e6, 1)),
  };
  return kKnobs;
}

int ModelsOf(std::string_view model) { return model == "gbdt" ? kTrees : kNetworks; }

const TrainKnob* FindTrainKnob(std::string_view name) {
  for (const auto& k : TrainKnobs())
    if (k.name == name) return &k;
  return nullptr;
}

pb::Value TrainKnobDefault(const TrainKnob& knob) {
  pb::Value v;
  switch (knob.type) {
    case K::kWord:
      v.set_text(std::string(knob.default_word));
      break;
    case K::kBool:
      v.set_flag(knob.default_number != 0);
      break;
    case K::kInt:
      v.set_integer(static_cast<int64_t>(knob.default_number));
      break;
    case K::kFloat:
      v.set_number(knob.default_number);
      break;
  }
  return v;
}

std::optional<pb::Value> FixedTrainKnob(const pb::TrainTask& task, const TrainKnob& knob) {
  const auto* f = task.GetDescriptor()->FindFieldByName(std::string(knob.name));
  const auto* refl = task.GetReflection();
  if (!f || !refl->HasField(task, f)) return std::nullopt;
  pb::Value v;
  switch (f->cpp_type()) {
    case google::protobuf::FieldDescriptor::CPPTYPE_STRING:
      v.set_text(refl->GetString(task, f));
      break;
    case google::protobuf::FieldDescriptor::CPPTYPE_BOOL:
      v.set_flag(refl->GetBool(task, f));
      break;
    case google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE:
      v.set_number(refl->GetDouble(task, f));
      break;
    case google::protobuf::FieldDescriptor::CPPTYPE_INT32:
      v.set_integer(refl->GetInt32(task, f));
      break;
    default:
      v.set_integer(static_cast<int64_t>(refl->GetUInt64(task, f)));
      break;
  }
  return v;
}

std::string TrainKnobWordList(const TrainKnob& knob) {
  std::string list;
  for (const auto& w : knob.words) list += (list.empty() ? "" : ", ") + std::string(w);
  return list;
}

std::string TrainKnobNameList() {
  std::string list;
  for (const auto& k : TrainKnobs()) list += (list.empty() ? "" : ", ") + std::string(k.name);
  return list;
}

std::string TrainKnobValueError(const TrainKnob& k, const pb::Value& v) {
  double d;
  switch (k.type) {
    case K::kBool:
      return v.kind_case() == pb::Value::kFlag ? "" : "must be true or false";
    case K::kWord:
      if (v.kind_case() != pb::Value::kText) return "must be a word";
      if (k.words.empty() || std::find(k.words.begin(), k.words.end(), v.text()) != k.words.end())
        return "";
      return "unknown value '" + v.text() + "'" +
             DidYouMean(v.text(), std::vector<std::string>(k.words.begin(), k.words.end())) +
             " (expected one of: " + TrainKnobWordList(k) + ")";
    default:
      if (!ValueAsDouble(v, &d) || v.kind_case() == pb::Value::kFlag) return "must be a number";
      if (k.type == K::kInt && !IsInteger(d)) return "must be an integer";
      if (d < k.min || d > k.max)
        return "must be in [" + FormatDouble(k.min) + ", " + FormatDouble(k.max) + "]";
      return "";
  }
}

}  // namespace sweep
