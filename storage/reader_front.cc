// A study's Pareto front as readers show it (sweep best, sweep trials
// --pareto, the tuner's summary): its completed trials' stored objectives
// and constraint values (table trial_values), and the feasible,
// non-dominated ones among them.
#include <cmath>
#include <limits>
#include <map>

#include "common/objectives.h"
#include "common/pareto.h"
#include "storage/reader.h"
#include "storage/trial_values.h"

namespace sweep {

Result<StudyFront> Reader::Front(const StudyRef& study) {
  StudyFront out;
  ASSIGN_OR_RETURN(pb::Study spec, StudySpec(study.id));
  out.objectives = ObjectivesOf(spec);
  out.constraints.assign(spec.constraints().begin(), spec.constraints().end());
  if (!TracksTrialValues(spec))
    return Status::FailedPrecondition("study '" + study.name +
                                      "' has one objective and no constraints: it has no front");
  ASSIGN_OR_RETURN(
      Stmt s,
      Stmt::Prepare(db_.get(),
                    "SELECT t.id, t.number, v.kind, v.position, v.value, v.violation "
                    "FROM trial_values v JOIN trials t ON t.id = v.trial_id "
                    "WHERE t.study_id=?1 AND t.status=" +
                        Sql(TrialStatus::kCompleted) + " ORDER BY t.id, v.kind, v.position"));
  s.Bind(1, study.id);
  const size_t n_obj = out.objectives.size(), n_con = out.constraints.size();
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    if (out.trials.empty() || out.trials.back().id != s.Int(0)) {
      FrontTrial t;
      t.id = s.Int(0);
      t.number = s.Int(1);
      t.objectives.assign(n_obj, std::nan(""));
      t.constraint_values.assign(n_con, std::nullopt);
      t.violations.assign(n_con, std::numeric_limits<double>::infinity());
      out.trials.push_back(std::move(t));
    }
    FrontTrial& t = out.trials.back();
    const size_t pos = static_cast<size_t>(s.Int(3));
    const bool objective = s.Text(2) == ValueKindName(ValueKind::kObjective);
    if (objective && pos < n_obj && !s.IsNull(4)) t.objectives[pos] = s.Double(4);
    if (!objective && pos < n_con) {
      if (!s.IsNull(4)) t.constraint_values[pos] = s.Double(4);
      if (!s.IsNull(5)) t.violations[pos] = s.Double(5);
    }
  }
  std::vector<ParetoPoint> points;
  std::vector<size_t> index;  // points[i] is trials[index[i]]
  const std::vector<double> signs = GoalSigns(out.objectives);
  for (size_t i = 0; i < out.trials.size(); ++i) {
    FrontTrial& t = out.trials[i];
    for (double v : t.violations) t.violation += v;
    bool finite = true;
    for (double v : t.objectives) finite = finite && std::isfinite(v);
    if (!finite) continue;  // an old row: a completed trial has every objective
    if (t.violation == 0) ++out.feasible;
    points.push_back({Minimised(t.objectives, signs), t.violation});
    index.push_back(i);
  }
  if (points.empty()) return out;
  // Constrained domination: with no feasible trial, the first front is the
  // least infeasible trials.
  const std::vector<std::vector<size_t>> fronts = NonDominatedFronts(points);
  for (size_t i : fronts[0]) out.front.push_back(index[i]);
  return out;
}

}  // namespace sweep
