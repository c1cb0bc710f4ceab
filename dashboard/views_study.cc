// The studies, one study, its trials and one trial, as the dashboard's JSON.
#include <algorithm>
#include <cctype>

#include "common/json_writer.h"
#include "common/objectives.h"
#include "common/values.h"
#include "dashboard/series.h"
#include "dashboard/views.h"
#include "storage/db_lock.h"

namespace sweep {
namespace {

// Trials ended per second: over the last minute while a tuner runs the
// study, over its whole run afterwards.
double TrialsPerSecond(const StudySummary& s, bool live, double now) {
  if (!s.first_started) return 0;
  if (live) {
    double window = std::min(60.0, now - *s.first_started);
    return window > 0 ? static_cast<double>(s.ended_last_minute) / window : 0;
  }
  int64_t ended = s.counts.Finished();
  double span = s.last_ended ? *s.last_ended - *s.first_started : 0;
  return span > 0 ? static_cast<double>(ended) / span : 0;
}

// `spec`: the study's, for what the summary row shows of it (max_trials,
// so that the list and the study page show progress alike).
void WriteSummary(JsonWriter& w, const StudySummary& s, const pb::Study& spec,
                  std::optional<int64_t> tuner, double now) {
  const StudyStatus state = ShownStudyStatus(s.status, tuner.has_value());
  const bool live = state == StudyStatus::kRunning;
  using S = TrialStatus;
  w.Key("id").Int(s.ref.id).Key("name").String(s.ref.name);
  w.Key("metric").String(s.ref.metric).Key("goal").String(s.ref.maximize ? "maximize" : "minimize");
  w.Key("algorithm").String(s.algorithm).Key("state").String(StudyStatusName(state));
  w.Key("tuner_pid").Int(live ? tuner : std::nullopt);
  w.Key("trials").Int(s.counts.Total());
  for (S st : {S::kCompleted, S::kFailed, S::kStopped, S::kRunning, S::kQueued, S::kPaused})
    w.Key(TrialStatusName(st)).Int(s.counts[st]);
  w.Key("best").Number(s.best);
  w.Key("trials_per_s").Number(TrialsPerSecond(s, live, now));
  w.Key("created_at").Number(s.created_at).Key("updated_at").Number(s.updated_at);
  w.Key("owner").StringOrNull(s.owner);  // submitted to a service; null otherwise
  w.Key("priority").Number(s.priority).Key("max_runners").Int(s.max_runners);
  w.Key("max_trials")
      .Int(spec.algorithm().has_max_trials() ? std::optional<int64_t>(spec.algorithm().max_trials())
                                             : std::nullopt);
  w.Key("note").String(s.note).Key("tags").BeginArray();
  for (const std::string& tag : s.tags) w.String(tag);
  w.EndArray();
}

std::optional<int64_t> Tuner(Reader& reader) {
  auto holder = DbLock::Holder(reader.path());
  return holder.ok() ? *holder : std::nullopt;
}

// "float", "int", "categorical", "constant": the proto's enum name, as
// the study file spells it.
std::string TypeName(pb::ParamType t) {
  std::string name = pb::ParamType_Name(t).substr(sizeof("PARAM_TYPE_") - 1);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

void WriteTrial(JsonWriter& w, const TrialView& t) {
  w.Key("id").Int(t.id).Key("number").Int(t.number).Key("status").String(TrialStatusName(t.status));
  w.Key("params").Raw(ParamsToJson(t.params.params()));
  w.Key("value").Number(t.value).Key("step").Int(t.step).Key("attempts").Int(t.attempts);
  w.Key("runner");
  t.runner.empty() ? w.Null() : w.String(t.runner);
  w.Key("failure");
  t.failure.empty() ? w.Null() : w.String(t.failure);
  // From the parsed metrics, not the stored text: a database from
  // elsewhere (--from, a shared file) could hold anything there.
  w.Key("metrics");
  if (t.metrics_json.empty()) {
    w.Null();
  } else {
    w.BeginObject();
    for (const auto& [name, value] : t.metrics) w.Key(name).Number(value);
    w.EndObject();
  }
  w.Key("parent").Int(t.parent).Key("parent_number").Int(t.parent_number);
  w.Key("parent_step").Int(t.parent_step);
  w.Key("created_at").Number(t.created_at).Key("started_at").Number(t.started_at);
  w.Key("ended_at").Number(t.ended_at);
}

}  // namespace

void WriteDecisionsAndEvents(JsonWriter& w, const std::vector<DecisionView>& decisions,
                             const std::vector<EventView>& events) {
  w.Key("decisions").BeginArray();
  for (const DecisionView& d : decisions) {
    w.BeginObject().Key("step").Int(d.step).Key("decision").String(d.decision);
    w.Key("reason").String(d.reason).Key("at").Number(d.at).EndObject();
  }
  w.EndArray().Key("events").BeginArray();
  for (const EventView& e : events) {
    w.BeginObject().Key("kind").String(e.kind).Key("detail").String(e.detail);
    w.Key("at").Number(e.at).EndObject();
  }
  w.EndArray();
}

Result<std::string> StudiesJson(Reader& reader, double now) {
  ASSIGN_OR_RETURN(auto studies, reader.StudySummaries(now));
  auto tuner = Tuner(reader);
  JsonWriter w;
  w.BeginObject().Key("now").Number(now).Key("studies").BeginArray();
  for (const auto& s : studies) {
    ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(s.ref.id));
    w.BeginObject();
    WriteSummary(w, s, spec, tuner, now);
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

Result<std::string> StudyJson(Reader& reader, int64_t study_id, double now) {
  ASSIGN_OR_RETURN(auto studies, reader.StudySummaries(now));
  auto it = std::find_if(studies.begin(), studies.end(),
                         [&](const StudySummary& s) { return s.ref.id == study_id; });
  if (it == studies.end())
    return Status::NotFound("no study " + std::to_string(study_id) + " in " + reader.path());
  ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(study_id));
  ASSIGN_OR_RETURN(auto best, reader.Trials(it->ref, std::nullopt, 1));
  JsonWriter w;
  w.BeginObject().Key("now").Number(now);
  WriteSummary(w, *it, spec, Tuner(reader), now);
  w.Key("best_trial");
  if (best.empty()) {
    w.Null();
  } else {
    w.BeginObject().Key("id").Int(best[0].id).Key("number").Int(best[0].number);
    w.Key("value").Number(best[0].value).Key("params").Raw(ParamsToJson(best[0].params.params()));
    w.EndObject();
  }
  w.Key("parameters").BeginArray();
  for (const pb::Parameter& p : spec.parameters()) {
    w.BeginObject().Key("name").String(p.name()).Key("type").String(TypeName(p.type()));
    if (p.has_min()) w.Key("min").Number(p.min());
    if (p.has_max()) w.Key("max").Number(p.max());
    if (p.has_step()) w.Key("step").Number(p.step());
    w.Key("log").Bool(p.log()).Key("conditional").Bool(p.when_size() > 0);
    if (p.values_size() > 0) {
      w.Key("values").BeginArray();
      for (const pb::Value& v : p.values()) w.Raw(ValueToJson(v));
      w.EndArray();
    }
    if (p.type() == pb::PARAM_TYPE_CONSTANT) w.Key("value").Raw(ValueToJson(p.value()));
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

Result<std::string> TrialsJson(Reader& reader, int64_t study_id) {
  ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(study_id));
  StudyRef ref{study_id, spec.name(), PrimaryObjective(spec).metric(),
               PrimaryObjective(spec).goal() == pb::GOAL_MAXIMIZE};
  ASSIGN_OR_RETURN(auto trials, reader.Trials(ref, std::nullopt, 0));
  JsonWriter w;
  ASSIGN_OR_RETURN(auto runs, reader.EarlierRuns(study_id));
  w.BeginObject().Key("study").Int(study_id).Key("metric").String(ref.metric);
  w.Key("trials").BeginArray();
  for (const auto& t : trials) {
    w.BeginObject();
    WriteTrial(w, t);
    w.EndObject();
  }
  // Each trial's runs before its latest, on the runner that ran each.
  w.EndArray().Key("runs").BeginArray();
  for (const RunnerRun& r : runs) {
    w.BeginObject().Key("trial").Int(r.trial_id).Key("runner").String(r.runner);
    w.Key("started_at").Number(r.started_at).Key("ended_at").Number(r.ended_at);
    w.Key("cause").String(r.preempted ? "preempted" : "paused").EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

Result<std::string> TrialJson(Reader& reader, int64_t trial_id) {
  ASSIGN_OR_RETURN(TrialDetail d, reader.Trial(trial_id));
  ASSIGN_OR_RETURN(auto decisions, reader.Decisions(trial_id));
  ASSIGN_OR_RETURN(auto events, reader.Events(trial_id));
  ASSIGN_OR_RETURN(auto logs, reader.Logs(trial_id));
  ASSIGN_OR_RETURN(auto reports, reader.TrialReports(trial_id));
  JsonWriter w;
  w.BeginObject();
  WriteTrial(w, d.trial);
  w.Key("study").Int(d.study.id).Key("study_name").String(d.study.name);
  w.Key("metric").String(d.study.metric);
  WriteDecisionsAndEvents(w, decisions, events);
  w.Key("logs").BeginArray();
  for (const auto& l : logs) {
    w.BeginObject().Key("attempt").Int(l.attempt).Key("bytes").Int(l.bytes);
    w.Key("dropped").Int(l.dropped).Key("tail").String(ValidUtf8(l.tail)).EndObject();
  }
  w.EndArray();
  WriteSeries(w, reports, kTrialSeriesPoints);
  w.EndObject();
  return w.Take();
}

}  // namespace sweep
