// StudyRun: what a finished trial's objectives and constraints came to
// (tuner/trial_values.h), stored in table trial_values for studies with
// several objectives or with constraints; and the message for a trial that
// did not report the objective.
#include <cmath>

#include "common/json.h"
#include "common/nearest_word.h"
#include "common/objectives.h"
#include "tuner/study_run.h"

namespace sweep {

std::string StudyRun::MissingMetric(const pb::Final& fin) const {
  const std::string& metric = PrimaryObjective(study_).metric();
  std::vector<std::string> names;
  for (const auto& m : fin.metrics()) names.push_back(m.name());
  std::string out = "the trial reported no '" + metric + "' metric (" +
                    (study_.objectives_size() > 0 ? "objectives[0].metric" : "objective.metric") +
                    ")";
  if (names.empty()) return out + ", nor any other";
  auto near = NearestWord(metric, names);
  return out + "; it reported " + JoinWords(names) +
         (near ? "; did you mean '" + *near + "'?" : "");
}

std::vector<double> StudyRun::ObjectivesIn(const pb::Report& report) const {
  if (!HasSeveralObjectives(study_)) return {};
  std::vector<double> out;
  for (const pb::Objective& o : ObjectivesOf(study_)) {
    double v = std::nan("");
    for (const auto& m : report.metrics()) {
      if (m.name() == o.metric()) {
        v = m.value();  // the first of a name, the one the database keeps
        break;
      }
    }
    out.push_back(v);
  }
  return out;
}

FinishedValues StudyRun::ValuesAt(const Trial& t, int64_t step,
                                  const std::map<std::string, double>& finals) {
  return ComputeFinishedValues(study_, finals, [&](const std::string& metric) {
    auto v = store_->LatestReported(t.id, step, metric);
    if (!v.ok()) Write(v.status());
    return v.ok() ? *v : std::nullopt;
  });
}

void StudyRun::RecordValues(Trial* t, int64_t step, const std::map<std::string, double>& finals) {
  if (!TracksTrialValues(study_)) return;
  FinishedValues v = ValuesAt(*t, step, finals);
  Write(store_->RecordTrialValues(t->id, v.values));
  t->objectives.clear();
  t->violation = 0;
  for (const TrialValue& tv : v.values) {
    if (tv.kind == ValueKind::kObjective)
      t->objectives.push_back(tv.value.value_or(std::nan("")));
    else
      t->violation += tv.violation.value_or(HUGE_VAL);
  }
}

}  // namespace sweep
