// Loading the study's data once on the tuner's side.
#include "tuner/study_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include "common/train_knobs.h"
#include "common/values.h"
#include "nn/data/data_source.h"

namespace sweep {

namespace {

// The smallest batch size a trial may get: the searched parameter's least
// value, else the one task.train fixes, else the knob's default.
std::optional<int64_t> SmallestBatch(const pb::Study& study) {
  for (const pb::Parameter& p : study.parameters()) {
    if (p.name() != "batch_size") continue;
    if (p.type() == pb::PARAM_TYPE_INT) return static_cast<int64_t>(p.min());
    std::optional<int64_t> least;
    auto take = [&](const pb::Value& v) {
      double b = 0;
      if (!ValueAsDouble(v, &b)) return;
      const auto n = static_cast<int64_t>(b);
      least = least ? std::min(*least, n) : n;
    };
    if (p.type() == pb::PARAM_TYPE_CONSTANT) take(p.value());
    for (const pb::Value& v : p.values()) take(v);
    return least;
  }
  const TrainKnob* knob = FindTrainKnob("batch_size");
  if (!knob) return std::nullopt;
  pb::Value v = FixedTrainKnob(study.task().train(), *knob).value_or(TrainKnobDefault(*knob));
  double b = 0;
  if (!ValueAsDouble(v, &b)) return std::nullopt;
  return static_cast<int64_t>(b);
}

}  // namespace

Status CheckSplits(const pb::Study& study, int default_validation, int64_t examples) {
  const pb::TrainTask& t = study.task().train();
  const int64_t validation = t.has_validation() ? t.validation() : default_validation;
  if (validation >= examples) {
    return Status::InvalidArgument("task.train.validation: " + std::to_string(validation) +
                                   " validation examples of the " + std::to_string(examples) +
                                   " the training table has leave none to train on; set "
                                   "task.train.validation below " +
                                   std::to_string(examples));
  }
  const int64_t left = examples - validation;
  std::optional<int64_t> batch = SmallestBatch(study);
  if (batch && *batch > left) {
    return Status::InvalidArgument("batch_size " + std::to_string(*batch) + " is more than the " +
                                   std::to_string(left) +
                                   " training examples left after the validation split (" +
                                   std::to_string(validation) + " of " + std::to_string(examples) +
                                   "): every trial would fail; set batch_size (in "
                                   "task.train or its parameter's range) to at most " +
                                   std::to_string(left));
  }
  return Status::Ok();
}

Status CheckStudyData(const pb::Study& study, bool required, std::string* summary) {
  summary->clear();
  if (!study.task().has_train() || !study.task().train().has_data()) return Status::Ok();
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
    return Status::Ok();
  }
  auto loaded = nn::LoadData(spec);
  if (!loaded.ok()) return Status::InvalidArgument("task.train.data: " + loaded.status().message());
  const nn::Splits& d = *loaded;
  const nn::Examples& x = d.train;
  RETURN_IF_ERROR(CheckSplits(study, nn::DefaultValidation(spec, d), x.n));
  *summary = std::to_string(x.n) + " training examples (validation comes out of them), " +
             std::to_string(d.test.n) + " test; ";
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
  return Status::Ok();
}

}  // namespace sweep
