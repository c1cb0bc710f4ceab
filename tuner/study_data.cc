// Loading the study's data once on the tuner's side.
#include "tuner/study_data.h"

#include <sys/stat.h>

#include "nn/data/data_source.h"

namespace sweep {

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
