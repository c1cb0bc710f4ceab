// A study's Pareto front as the dashboard's JSON (view `front`): each
// completed trial's objectives, whether it is feasible and on the front,
// the constraints it broke, and the front's hypervolume as the trials came
// in. Studies with one objective and no constraints have no front.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/json_writer.h"
#include "common/objectives.h"
#include "common/pareto.h"
#include "dashboard/views.h"

namespace sweep {

namespace {

// At most this many points on the hypervolume's line.
constexpr size_t kHypervolumePoints = 200;

// The hypervolume of the feasible trials among the first k (by id, the
// order they were made), for k at up to kHypervolumePoints steps, in the box
// between each objective's best and worst feasible value (goals applied),
// against a reference a tenth past the worst (so at most 1.1^m).
void WriteHypervolume(JsonWriter& w, const StudyFront& f) {
  const size_t m = f.objectives.size();
  std::vector<std::vector<double>> points(f.trials.size());
  std::vector<double> lo(m, std::numeric_limits<double>::infinity()), hi(m, -lo[0]);
  const std::vector<double> signs = GoalSigns(f.objectives);
  for (size_t i = 0; i < f.trials.size(); ++i) {
    const FrontTrial& t = f.trials[i];
    bool finite = t.violation == 0;
    for (size_t k = 0; k < m && finite; ++k) finite = std::isfinite(t.objectives[k]);
    if (!finite) continue;
    points[i] = Minimised(t.objectives, signs);
    for (size_t k = 0; k < m; ++k) {
      lo[k] = std::min(lo[k], points[i][k]);
      hi[k] = std::max(hi[k], points[i][k]);
    }
  }
  w.Key("hypervolume").BeginArray();
  // The non-dominated feasible points so far: each new point is dropped if
  // one of them dominates it, else it joins them and drops those it
  // dominates, so each hypervolume is taken over the front alone.
  std::vector<std::vector<double>> archive;
  const size_t n = f.trials.size();
  const size_t stride = std::max<size_t>(1, (n + kHypervolumePoints - 1) / kHypervolumePoints);
  for (size_t i = 0; m > 1 && i < n; ++i) {
    if (!points[i].empty()) {
      std::vector<double> p;
      for (size_t k = 0; k < m; ++k)
        p.push_back(hi[k] > lo[k] ? (points[i][k] - lo[k]) / (hi[k] - lo[k]) : 0);
      bool dominated = false;
      for (const auto& q : archive) dominated = dominated || ParetoDominates(q, p) || q == p;
      if (!dominated) {
        archive.erase(
            std::remove_if(archive.begin(), archive.end(),
                           [&](const std::vector<double>& q) { return ParetoDominates(p, q); }),
            archive.end());
        archive.push_back(std::move(p));
      }
    }
    if ((i + 1) % stride != 0 && i + 1 != n) continue;
    w.BeginObject().Key("trials").Int(static_cast<int64_t>(i + 1));
    w.Key("value").Number(Hypervolume(archive, std::vector<double>(m, 1.1)));
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

Result<std::string> FrontJson(Reader& reader, int64_t study_id) {
  ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(study_id));
  JsonWriter w;
  w.BeginObject().Key("objectives").BeginArray();
  for (const pb::Objective& o : ObjectivesOf(spec))
    w.BeginObject()
        .Key("metric")
        .String(o.metric())
        .Key("goal")
        .String(o.goal() == pb::GOAL_MAXIMIZE ? "maximize" : "minimize")
        .EndObject();
  w.EndArray().Key("constraints").BeginArray();
  for (const pb::OutcomeConstraint& c : spec.constraints()) w.String(ConstraintText(c));
  w.EndArray();
  if (!TracksTrialValues(spec)) {
    w.Key("trials").BeginArray().EndArray().Key("hypervolume").BeginArray().EndArray();
    return w.EndObject().Take();
  }
  StudyRef ref;
  ref.id = study_id;
  ref.name = spec.name();
  ASSIGN_OR_RETURN(StudyFront f, reader.Front(ref));
  std::vector<bool> on_front(f.trials.size(), false);
  if (f.feasible > 0)
    for (size_t i : f.front) on_front[i] = true;
  w.Key("feasible").Int(f.feasible).Key("trials").BeginArray();
  for (size_t i = 0; i < f.trials.size(); ++i) {
    const FrontTrial& t = f.trials[i];
    w.BeginObject().Key("id").Int(t.id).Key("number").Int(t.number).Key("values").BeginArray();
    for (double v : t.objectives) w.Number(v);
    w.EndArray().Key("feasible").Bool(t.violation == 0).Key("front").Bool(on_front[i]);
    w.Key("broken").BeginArray();
    for (size_t k = 0; k < t.violations.size(); ++k)
      if (!(t.violations[k] == 0)) w.String(ConstraintText(spec.constraints(static_cast<int>(k))));
    w.EndArray().EndObject();
  }
  w.EndArray();
  WriteHypervolume(w, f);
  return w.EndObject().Take();
}

}  // namespace sweep
