// Seeding a study with another study's finished trials.
#include "tuner/warm_start.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "common/clock.h"
#include "common/objectives.h"
#include "common/study_defaults.h"
#include "common/values.h"
#include "search_spaces/space_point.h"
#include "storage/reader.h"
#include "tuner/scheduler.h"

namespace sweep {

namespace {

// "path" or "path:STUDY" (an existing file named with a colon stays whole).
std::pair<std::string, std::string> SplitSource(const std::string& from) {
  struct stat st;
  size_t colon = from.rfind(':');
  if (stat(from.c_str(), &st) == 0 || colon == std::string::npos) return {from, ""};
  return {from.substr(0, colon), from.substr(colon + 1)};
}

}  // namespace

int64_t ScaleStep(int64_t step, int64_t from_steps, int64_t to_steps) {
  if (step <= 0 || from_steps <= 0 || to_steps <= 0 || from_steps == to_steps) return step;
  // A program may report past its steps: that is all of them. Rounded up,
  // so 1..from_steps maps onto 1..to_steps: a trial that reported anything
  // reported at least a step.
  step = std::min(step, from_steps);
  return (step * to_steps + from_steps - 1) / from_steps;
}

std::string StepsNote(const WarmStart& w) {
  return "the source's trials ran " + std::to_string(w.source_steps) + " steps, this study's run " +
         std::to_string(w.steps) +
         ": their steps are counted as the same share of this study's, and their values are the "
         "source's";
}

Status CheckWarmStartable(const pb::Study& study) {
  if (TraitsOf(study).learns_from_copied_trials) return Status::Ok();
  return Status::InvalidArgument(
      "--from seeds a study of algorithm type tpe, gp or auto, which learns from "
      "the copied trials; this study's algorithm does not");
}

Result<WarmStart> SeedFromStudy(Store* store, int64_t study_id, const pb::Study& study,
                                const SearchSpace& space, const std::string& from) {
  if (TracksTrialValues(study))
    return Status::InvalidArgument(
        "--from " + from +
        ": a study with several objectives or outcome constraints cannot be seeded yet (the "
        "copied trials would carry no objectives or constraint values to learn from)");
  auto [path, name] = SplitSource(from);
  ASSIGN_OR_RETURN(std::unique_ptr<Reader> reader, Reader::Open(path));
  auto ref = reader->ResolveStudy(name);
  if (!ref.ok()) return ref.status().Wrap("--from " + from);
  char* a = realpath(path.c_str(), nullptr);
  char* b = realpath(store->path().c_str(), nullptr);
  bool same_file = a && b && std::string(a) == b;
  free(a);
  free(b);
  if (same_file && ref->name == study.name())
    return Status::InvalidArgument("--from " + from + " names the study being seeded itself");
  bool maximize = PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE;
  if (ref->metric != PrimaryObjective(study).metric() || ref->maximize != maximize) {
    return Status::InvalidArgument("--from " + from + ": study '" + ref->name + "' " +
                                   (ref->maximize ? "maximizes " : "minimizes ") + ref->metric +
                                   ", this one " + (maximize ? "maximizes " : "minimizes ") +
                                   PrimaryObjective(study).metric() +
                                   ": its values would mislead the model");
  }
  ASSIGN_OR_RETURN(std::vector<TrialView> trials, reader->Trials(*ref, std::nullopt, 0));
  ASSIGN_OR_RETURN(pb::Study source, reader->StudySpec(ref->id));
  WarmStart out;
  out.source = from;
  out.source_steps = TaskResource(source.task());
  out.steps = TaskResource(study.task());
  double now = WallSeconds();
  for (const TrialView& t : trials) {
    if (t.status != TrialStatus::kCompleted && t.status != TrialStatus::kStopped) {
      if (t.status != TrialStatus::kFailed) ++out.unfinished;
      continue;
    }
    // A completed trial without a value (its objective was NaN) tells the
    // model nothing it can rank.
    if (t.status == TrialStatus::kCompleted && !t.value) {
      ++out.valueless;
      continue;
    }
    if (!CheckPoint(space, t.params).ok()) {
      ++out.skipped;
      continue;
    }
    int64_t number = out.imported++;
    // TPE ranks stopped trials by how far they got: a step of the source's
    // counts as the same share of this study's steps.
    const int64_t step = ScaleStep(t.step.value_or(0), out.source_steps, out.steps);
    std::string detail = "copied by --from " + from + " (study '" + ref->name + "', trial " +
                         std::to_string(t.number);
    if (out.source_steps != out.steps && t.step) {
      detail += ", step " + std::to_string(*t.step) + " of " + std::to_string(out.source_steps) +
                " there";
    }
    ASSIGN_OR_RETURN(int64_t id, store->InsertTrial(study_id, number, t.params,
                                                    ParamsToJson(t.params.params()), now));
    RETURN_IF_ERROR(store->FinishTrial(id, t.status, t.value, step,
                                       t.metrics_json.empty() ? "{}" : t.metrics_json, "", now));
    RETURN_IF_ERROR(store->AddEvent(study_id, id, "proposed", detail + ")", now));
  }
  RETURN_IF_ERROR(store->AddEvent(
      study_id, 0, "warm_start",
      "seeded from " + from + ": " + std::to_string(out.imported) + " trials copied, " +
          std::to_string(out.skipped) + " outside the search space skipped" +
          (out.valueless ? ", " + std::to_string(out.valueless) + " without a value skipped" : "") +
          (out.source_steps != out.steps ? "; " + StepsNote(out) : ""),
      now));
  return out;
}

}  // namespace sweep
