// Loading the study's data once on the tuner's side.
#include "tuner/study_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "common/train_knobs.h"
#include "common/values.h"
#include "nn/data/data_source.h"

namespace sweep {

namespace {

struct BatchRange {
  int64_t least = 0, most = 0;
};

// The batch sizes a trial may get: the searched parameter's values, else the
// one task.train fixes, else the knob's default.
std::optional<BatchRange> Batches(const pb::Study& study) {
  if (study.task().train().model() == "gbdt") return std::nullopt;  // trees take no batches
  for (const pb::Parameter& p : study.parameters()) {
    if (p.name() != "batch_size") continue;
    if (p.type() == pb::PARAM_TYPE_INT)
      return BatchRange{static_cast<int64_t>(p.min()), static_cast<int64_t>(p.max())};
    std::optional<BatchRange> range;
    auto take = [&](const pb::Value& v) {
      double b = 0;
      if (!ValueAsDouble(v, &b)) return;
      const auto n = static_cast<int64_t>(b);
      if (!range) range = BatchRange{n, n};
      range->least = std::min(range->least, n);
      range->most = std::max(range->most, n);
    };
    if (p.type() == pb::PARAM_TYPE_CONSTANT) take(p.value());
    for (const pb::Value& v : p.values()) take(v);
    return range;
  }
  const TrainKnob* knob = FindTrainKnob("batch_size");
  if (!knob) return std::nullopt;
  pb::Value v = FixedTrainKnob(study.task().train(), *knob).value_or(TrainKnobDefault(*knob));
  double b = 0;
  if (!ValueAsDouble(v, &b)) return std::nullopt;
  return BatchRange{static_cast<int64_t>(b), static_cast<int64_t>(b)};
}

// Classes that are all numbers, and many of them: a quantity, perhaps.
std::optional<std::string> RegressionHint(const pb::Study& study, const nn::Splits& d) {
  constexpr size_t kManyClasses = 20;
  if (d.problem != nn::Problem::kClassification || d.class_names.size() <= kManyClasses)
    return std::nullopt;
  for (const std::string& name : d.class_names) {
    double v = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
    if (ec != std::errc() || end != name.data() + name.size()) return std::nullopt;
  }
  const std::string& label = study.task().train().data().csv().label();
  return "the label" + (label.empty() ? "" : " '" + label + "'") + " has " +
         std::to_string(d.class_names.size()) +
         " distinct numbers, each taken as a class (task.train.problem: classification); if "
         "it is a quantity to predict, set task.train.problem: regression";
}

}  // namespace

Status CheckSplits(const pb::Study& study, int default_validation, int64_t examples,
                   std::vector<std::string>* hints) {
  const pb::TrainTask& t = study.task().train();
  const int64_t folds = t.folds();  // beside validation: refused by search_spaces/validate_task.cc
  if (folds > examples) {
    return Status::InvalidArgument("task.train.folds: " + std::to_string(folds) + " folds of the " +
                                   std::to_string(examples) +
                                   " rows the training table has leave some empty; set it to "
                                   "at most " +
                                   std::to_string(examples));
  }
  // Cross-validated, the largest fold is the validation split to check.
  const int64_t validation = folds >= 2           ? (examples + folds - 1) / folds
                             : t.has_validation() ? t.validation()
                                                  : default_validation;
  if (validation >= examples) {
    return Status::InvalidArgument("task.train.validation: " + std::to_string(validation) +
                                   " validation examples of the " + std::to_string(examples) +
                                   " the training table has leave none to train on; set "
                                   "task.train.validation below " +
                                   std::to_string(examples));
  }
  const int64_t left = examples - validation;
  std::optional<BatchRange> batch = Batches(study);
  if (batch && batch->least > left) {
    return Status::InvalidArgument("batch_size " + std::to_string(batch->least) +
                                   " is more than the " + std::to_string(left) +
                                   " training examples left after the validation split (" +
                                   std::to_string(validation) + " of " + std::to_string(examples) +
                                   "): every trial would fail; set batch_size (in "
                                   "task.train or its parameter's range) to at most " +
                                   std::to_string(left));
  }
  if (batch && batch->most > left && hints) {
    hints->push_back("batch_size takes values up to " + std::to_string(batch->most) +
                     ", more than the " + std::to_string(left) +
                     " training examples left after the validation split: trials given more "
                     "than " +
                     std::to_string(left) + " will fail; keep its range at most " +
                     std::to_string(left));
  }
  return Status::Ok();
}

Result<StudyData> CheckStudyData(const pb::Study& study, bool required) {
  StudyData out;
  std::string* summary = &out.summary;
  if (!study.task().has_train() || !study.task().train().has_data()) return out;
  const pb::TrainTask& t = study.task().train();
  nn::DataSpec spec;
  spec.files = t.data();
  spec.problem = nn::ProblemOf(t);
  const pb::CsvData& c = t.data().csv();
  const pb::NpyData& n = t.data().npy();
  for (const std::string* f : {&c.train(), &c.test(), &c.train_labels(), &c.test_labels(),
                               &n.train_x(), &n.train_y(), &n.test_x(), &n.test_y()}) {
    struct stat st;
    if (f->empty() || stat(f->c_str(), &st) == 0) continue;
    if (required) {
      return Status::InvalidArgument(
          "task.train.data: " + *f +
          " is not on this machine, where the local runners would read it; fix the path, or "
          "run with --local-runners 0 and remote runners that have it");
    }
    *summary = *f + " is not on this machine: the runners must have it";
    return out;
  }
  auto loaded = nn::LoadData(spec);
  if (!loaded.ok()) return Status::InvalidArgument("task.train.data: " + loaded.status().message());
  const nn::Splits& d = *loaded;
  const nn::Examples& x = d.train;
  RETURN_IF_ERROR(CheckSplits(study, nn::DefaultValidation(spec, d), x.n, &out.hints));
  if (auto hint = RegressionHint(study, d)) out.hints.push_back(*hint);
  *summary = std::to_string(x.n) + " training examples (" +
             (t.folds() >= 2 ? "cross-validated in " + std::to_string(t.folds()) + " folds"
                             : std::string("validation comes out of them")) +
             "), " + std::to_string(d.test.n) + " test; ";
  if (x.image()) {
    *summary += std::to_string(x.h) + "x" + std::to_string(x.w) + " images, " +
                std::to_string(x.c) + (x.c == 1 ? " channel" : " channels");
  } else {
    *summary += std::to_string(x.c) + " features";
  }
  if (d.problem == nn::Problem::kRegression) {
    *summary += "; regression";
  } else {
    std::string names;
    for (size_t i = 0; i < d.class_names.size() && i < 10; ++i)
      names += (i ? ", " : "") + d.class_names[i];
    if (d.class_names.size() > 10) names += ", ...";
    *summary += "; " + std::to_string(d.classes) + " classes: " + names;
  }
  return out;
}

}  // namespace sweep
