// Learning curves, parameter importance, Hyperband/ASHA rungs and PBT
// lineage, as the dashboard's JSON.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "common/json_writer.h"
#include "common/objectives.h"
#include "dashboard/importance.h"
#include "dashboard/series.h"
#include "dashboard/views.h"

namespace sweep {
namespace {

StudyRef RefOf(const pb::Study& spec, int64_t id) {
  return StudyRef{id, spec.name(), PrimaryObjective(spec).metric(),
                  PrimaryObjective(spec).goal() == pb::GOAL_MAXIMIZE};
}

// The word a chart marks a decision with: a continue that promoted a trial
// is a promotion; routine continues have no reason and are not marked.
std::string MarkKind(const DecisionView& d) {
  if (d.decision == "continue") return d.reason.rfind("promoted", 0) == 0 ? "promote" : "continue";
  return d.decision;
}

// The number after `word` in `text`, or -1.
int64_t NumberAfter(const std::string& text, const std::string& word) {
  size_t at = text.find(word);
  if (at == std::string::npos) return -1;
  const char* p = text.c_str() + at + word.size();
  char* end = nullptr;
  long long v = std::strtoll(p, &end, 10);
  return end == p ? -1 : v;
}

}  // namespace

Result<std::string> CurvesJson(Reader& reader, int64_t study_id) {
  ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(study_id));
  StudyRef ref = RefOf(spec, study_id);
  ASSIGN_OR_RETURN(auto trials, reader.TrialStatuses(study_id));
  ASSIGN_OR_RETURN(auto decisions, reader.StudyDecisions(study_id));
  std::unordered_map<int64_t, std::vector<const DecisionView*>> marks;
  for (const auto& d : decisions)
    if (!d.decision.reason.empty()) marks[d.trial_id].push_back(&d.decision);
  // The points each curve gets share the budget among the trials that have
  // reports; trials without any have no curve, so this may over-count
  // them (a running sweep's queued trials) and shorten curves a little.
  size_t with_reports = 0;
  for (const auto& t : trials)
    if (t.status != TrialStatus::kQueued) ++with_reports;
  const size_t per_trial =
      with_reports ? std::clamp<size_t>(kCurvePointBudget / with_reports, 6, 1000) : 1000;
  std::unordered_map<int64_t, const TrialStatusRow*> by_id;
  for (const auto& t : trials) by_id[t.id] = &t;
  JsonWriter w;
  int64_t reports = 0, curves = 0;
  w.BeginArray();
  RETURN_IF_ERROR(reader.ForEachTrialReports(
      study_id, ref.metric, [&](const std::vector<ReportPoint>& trial_reports) {
        reports += static_cast<int64_t>(trial_reports.size());
        ++curves;
        std::vector<XY> full = MergeAttempts(trial_reports.begin(), trial_reports.end());
        const int64_t id = trial_reports.front().trial_id;
        auto trial = by_id.find(id);
        w.BeginObject().Key("id").Int(id);
        if (trial != by_id.end()) {
          w.Key("number")
              .Int(trial->second->number)
              .Key("status")
              .String(TrialStatusName(trial->second->status));
        }
        w.Key("points");
        WritePoints(w, Downsample(full, per_trial));
        w.Key("marks").BeginArray();
        for (const DecisionView* d : marks[id]) {
          auto at = std::lower_bound(full.begin(), full.end(), static_cast<double>(d->step),
                                     [](const XY& p, double s) { return p.x < s; });
          w.BeginArray().Int(d->step);
          if (at != full.end() && at->x == static_cast<double>(d->step)) {
            w.Number(at->y);
          } else {
            w.Null();
          }
          w.String(MarkKind(*d)).String(d->reason).EndArray();
        }
        w.EndArray().EndObject();
        return Status::Ok();
      }));
  w.EndArray();
  JsonWriter head;
  head.BeginObject().Key("metric").String(ref.metric);
  head.Key("reports").Int(reports).Key("trials").Int(curves);
  head.Key("points_per_trial").Int(static_cast<int64_t>(per_trial));
  head.Key("curves").Raw(w.Take()).EndObject();
  return head.Take();
}

Result<std::string> ImportanceJson(Reader& reader, int64_t study_id) {
  ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(study_id));
  ASSIGN_OR_RETURN(auto trials, reader.FinishedPoints(study_id));
  Importance imp = PedAnova(spec, trials);
  JsonWriter w;
  w.BeginObject().Key("method").String("ped-anova").Key("quantile").Number(imp.quantile);
  w.Key("trials").Int(imp.trials).Key("top").Int(imp.top);
  w.Key("completed").Int(imp.completed).Key("stopped_used").Int(imp.stopped_used);
  w.Key("stopped_left_out").Int(imp.stopped_left_out).Key("full_step").Int(imp.full_step);
  w.Key("params").BeginArray();
  for (const auto& p : imp.params) {
    w.BeginObject().Key("name").String(p.name).Key("importance").Number(p.importance);
    w.Key("divergence").Number(p.divergence).Key("trials").Int(p.trials).EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

Result<std::string> RungsJson(Reader& reader, int64_t study_id) {
  ASSIGN_OR_RETURN(auto decisions, reader.StudyDecisions(study_id));
  // (bracket, rung, step) -> trial number -> its last decision there. The
  // algorithms' reasons name the rung as "rung K (step S)" and Hyperband's
  // add "of bracket B" (tuner/algorithms/asha.cc, hyperband.cc).
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::map<int64_t, std::string>> rungs;
  for (const auto& d : decisions) {
    int64_t rung = NumberAfter(d.decision.reason, "rung ");
    if (rung < 0) continue;
    int64_t bracket = NumberAfter(d.decision.reason, "of bracket ");
    rungs[{bracket, rung, d.decision.step}][d.number] = MarkKind(d.decision);
  }
  JsonWriter w;
  w.BeginObject().Key("brackets").BeginArray();
  std::optional<int64_t> open;
  for (const auto& [key, trials] : rungs) {
    auto [bracket, rung, step] = key;
    if (open != bracket) {
      if (open) w.EndArray().EndObject();
      w.BeginObject().Key("bracket").Int(bracket >= 0 ? std::optional<int64_t>(bracket)
                                                      : std::nullopt);
      w.Key("rungs").BeginArray();
      open = bracket;
    }
    int64_t promoted = 0, stopped = 0, paused = 0;
    for (const auto& [number, kind] : trials) {
      promoted += kind == "promote";
      stopped += kind == "stop";
      paused += kind == "pause";
    }
    w.BeginObject().Key("rung").Int(rung).Key("step").Int(step);
    w.Key("entered").Int(static_cast<int64_t>(trials.size())).Key("promoted").Int(promoted);
    w.Key("stopped").Int(stopped).Key("waiting").Int(paused).Key("promoted_trials").BeginArray();
    for (const auto& [number, kind] : trials)
      if (kind == "promote") w.Int(number);
    w.EndArray().EndObject();
  }
  if (open) w.EndArray().EndObject();
  w.EndArray().EndObject();
  return w.Take();
}

Result<std::string> LineageJson(Reader& reader, int64_t study_id) {
  ASSIGN_OR_RETURN(auto decisions, reader.StudyDecisions(study_id));
  std::unordered_map<int64_t, std::string> exploit_reason;
  for (const auto& d : decisions)
    if (d.decision.decision == "exploit") exploit_reason[d.trial_id] = d.decision.reason;
  JsonWriter w;
  w.BeginObject().Key("trials").BeginArray();
  // Every trial copied from another has an exploit decision (tuner/decision.h):
  // a study without one has no lineage, and its trials need not be read.
  std::vector<TrialView> trials;
  if (!exploit_reason.empty()) {
    ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(study_id));
    ASSIGN_OR_RETURN(trials, reader.Trials(RefOf(spec, study_id), std::nullopt, 0));
  }
  for (const auto& t : trials) {
    w.BeginObject().Key("id").Int(t.id).Key("number").Int(t.number).Key("status").String(
        TrialStatusName(t.status));
    w.Key("parent").Int(t.parent).Key("parent_step").Int(t.parent_step).Key("step").Int(t.step);
    w.Key("value").Number(t.value);
    auto r = exploit_reason.find(t.id);
    if (r != exploit_reason.end()) w.Key("reason").String(r->second);
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

}  // namespace sweep
