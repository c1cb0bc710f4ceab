// Study validation, the entry point: defaults, the study-wide rules, then the
// parameter, task and algorithm checks (validate_*.cc), then the grid's size.
#include "search_spaces/validate.h"

#include <cmath>
#include <cstdio>

#include "common/json.h"
#include "common/study_defaults.h"
#include "common/task_schema.h"
#include "search_spaces/model_families.h"
#include "search_spaces/space.h"
#include "search_spaces/validate_internal.h"

namespace sweep {

std::string StudyNameProblem(const std::string& name) {
  if (name.empty() || name.size() > 200) return "must be 1 to 200 characters";
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    auto next = i + 1 < name.size() ? static_cast<unsigned char>(name[i + 1]) : 0;
    if (c < 0x20 || c == 0x7f || (c == 0xc2 && next >= 0x80 && next <= 0x9f)) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c == 0xc2 ? next : c);
      return "must not contain control characters (character " + std::to_string(i + 1) + " is " +
             hex + ")";
    }
  }
  return "";
}

namespace {

using validate_internal::Checker;

constexpr uint64_t kMaxGridPoints = 1000000;

}  // namespace

std::vector<std::string> TaskMetrics(const pb::Task& task) {
  // The table is shared with the tasks and the docs: common/task_schema.cc.
  return MetricsOfTask(task);
}

Status ValidateStudy(ParsedStudy* parsed) {
  pb::Study& study = parsed->study;
  Checker c(parsed->source, &parsed->refused);
  for (const std::string& e : parsed->skipped) c.Add(e);
  if (study.name().empty()) {
    // Default: the file's base name without extension.
    std::string base = parsed->source.file();
    size_t slash = base.rfind('/');
    if (slash != std::string::npos) base = base.substr(slash + 1);
    size_t dot = base.find('.');
    if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
    study.set_name(base);
  }
  if (std::string problem = StudyNameProblem(study.name()); !problem.empty())
    c.Fail("name", problem);
  // Every check below sees the study as it will run; a default that does
  // not fit the task is reported at the field it fills.
  // `model: auto` on a table searches the model families (model_families.h);
  // before the defaults, which count the parameters (BOHB's model).
  ExpandAutoModel(&study);
  ResolveDefaults(&study);

  validate_internal::CheckObjectives(study, &c);
  validate_internal::CheckTask(study, &c);
  validate_internal::CheckAlgorithm(study, &c);

  if (study.resources().has_gpus_per_trial()) {
    int g = study.resources().gpus_per_trial();
    if (g < 1 || g > 64) c.Fail("resources.gpus_per_trial", "must be in [1, 64]");
    if (!study.task().has_train()) c.Fail("resources.gpus_per_trial", "only train tasks use GPUs");
  }
  const pb::Resources& res = study.resources();
  if (!(res.max_checkpoint_mb() > 0 && res.max_checkpoint_mb() <= 127))
    c.Fail("resources.max_checkpoint_mb", "must be in (0, 127] MiB (a message's limit is 128 MiB)");
  if (!(res.checkpoint_every_s() >= 0 && res.checkpoint_every_s() <= 86400))
    c.Fail("resources.checkpoint_every_s", "must be in [0, 86400] seconds (0: every step)");
  if (!(res.checkpoint_budget_mb() >= 0 && std::isfinite(res.checkpoint_budget_mb())))
    c.Fail("resources.checkpoint_budget_mb", "must be >= 0 MiB (0: no limit)");
  else if (res.checkpoint_budget_mb() > 0 && res.checkpoint_budget_mb() < res.max_checkpoint_mb())
    c.Fail("resources.checkpoint_budget_mb",
           "is smaller than one checkpoint may be (resources.max_checkpoint_mb: " +
               FormatDouble(res.max_checkpoint_mb()) + "): no checkpoint would fit");
  validate_internal::CheckParameters(study, &c);
  if (!c.ok()) return c.status();
  validate_internal::CheckParameterConstraints(study, &c);
  if (!c.ok()) return c.status();

  if (study.algorithm().type() == pb::ALGORITHM_TYPE_GRID) {
    for (const auto& p : study.parameters()) {
      if (p.type() == pb::PARAM_TYPE_FLOAT && !p.has_step()) {
        c.Fail("parameters." + p.name(), "grid search needs a step for float parameter '" +
                                             p.name() + "' (or make it categorical)");
      }
    }
    if (!c.ok()) return c.status();
    auto space = SearchSpace::Create(study);
    if (!space.ok())
      return Status::InvalidArgument(parsed->source.Where("parameters") + space.status().message());
    auto size = space->GridSize(kMaxGridPoints);
    if (!size.ok())
      c.Fail("parameters", size.status().message() + "; narrow the space or use random search");
  }
  return c.status();
}

}  // namespace sweep
